"""Screens of the console: the main screen and its transition actions."""
