"""Simulation, policies and the agent harness."""
