"""English, read in one place: word lists by role (`lexicon`), the tokenizer and word forms (`tokens`), the
words of course names (`acronyms`). Imports nothing else from `app`."""
