"""dsh-agent: a coding agent that speaks the Agent Client Protocol over stdio."""

__version__ = "0.1.0"
