"""The docs folder and the instance state around it: sync, background jobs, trash, uploads, state paths.

See ARCHITECTURE.md, "Layout" and "Library state".
"""
