"""Agents: one interface (observation and mask in, action out) for every bot."""

from agents.base import Agent, HandRecord, RandomAgent, play_hands
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.registry import make_agent

__all__ = [
    "Agent",
    "ExpertAgent",
    "GreedyAgent",
    "HandRecord",
    "RandomAgent",
    "make_agent",
    "play_hands",
]
