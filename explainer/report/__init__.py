"""Turning analysis results into text, JSON and Markdown for people and scripts."""
