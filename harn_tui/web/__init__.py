"""`harn web`: the console served to browsers by textual-serve, one `harn tui` process per page, behind a token."""
