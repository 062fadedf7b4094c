"""Modal forms for transitions: reason (reject, retry, deny, cancel), reopen with findings, accept."""
