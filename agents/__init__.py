"""Agents: one interface (observation and mask in, action out) for every bot."""

from agents.base import Agent, HandRecord, RandomAgent, play_hands

__all__ = ["Agent", "HandRecord", "RandomAgent", "play_hands"]
