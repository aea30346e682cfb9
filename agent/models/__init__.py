"""Pluggable models for dsh-agent: the Model protocol and the offline, scripted and
OpenAI-compatible implementations. `agent.models.config` picks one from CLI, environment and
config file. Nothing here imports `openai` until a networked model actually streams."""

from agent.models.base import (
    ChatMessage,
    Finish,
    FinishReason,
    Model,
    ModelDelta,
    NoticeDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    UsageDelta,
)
from agent.models.offline import OfflineModel
from agent.models.openai_compat import OpenAICompatModel
from agent.models.scripted import Scenario, ScenarioError, ScriptedModel, load_scenario

__all__ = [
    "ChatMessage",
    "Finish",
    "FinishReason",
    "Model",
    "ModelDelta",
    "NoticeDelta",
    "OfflineModel",
    "OpenAICompatModel",
    "ReasoningDelta",
    "Scenario",
    "ScenarioError",
    "ScriptedModel",
    "TextDelta",
    "ToolCallDelta",
    "ToolSpec",
    "UsageDelta",
    "load_scenario",
]
