"""The database: conversations, pending questions, feedback, the question log and eval cases."""
