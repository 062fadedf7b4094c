"""Assets of `harn demo`: a team of scripted specialists, their replies, replanning files and templates."""
