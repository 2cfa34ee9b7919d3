"""Measuring a model at explaining profiles: question sets, runs scored by the chat's own checks, reports."""
