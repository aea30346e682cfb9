"""A model that cannot answer yet is marked in the model select before any prompt: DeepSeek
without a key says "needs DEEPSEEK_API_KEY", in its description and in `_meta`, so a picker can
mark the row; a model that can answer carries no mark. The real agent's session/new answer is
checked over pipes in tests/agent/runtime/test_runtime_model_select.py."""

from __future__ import annotations

from pathlib import Path

from agent.models.config import model_choices, resolve_settings, unavailable


def test_deepseek_without_a_key_is_unavailable(tmp_path: Path) -> None:
    settings = resolve_settings(config_path=tmp_path / "none.toml", env={})
    marks = {choice.id: choice.unavailable for choice in model_choices(settings)}
    assert marks == {
        "offline": None,
        "deepseek-chat": "needs DEEPSEEK_API_KEY",
        "deepseek-reasoner": "needs DEEPSEEK_API_KEY",
    }


def test_with_a_key_every_model_is_available(tmp_path: Path) -> None:
    env = {"DEEPSEEK_API_KEY": "sk-d"}
    settings = resolve_settings(config_path=tmp_path / "none.toml", env=env)
    assert all(choice.unavailable is None for choice in model_choices(settings))


def test_a_local_server_needs_no_key_but_a_custom_deepseek_model_does(tmp_path: Path) -> None:
    local = resolve_settings(
        base_url="http://127.0.0.1:8080/v1", model="qwen", config_path=tmp_path / "none.toml"
    )
    assert unavailable(local) is None
    assert model_choices(local)[-1].unavailable is None
    coder = resolve_settings(
        provider="deepseek", model="deepseek-coder", config_path=tmp_path / "none.toml", env={}
    )
    [custom] = [choice for choice in model_choices(coder) if choice.id == "deepseek-coder"]
    assert custom.unavailable == "needs DEEPSEEK_API_KEY"
    assert custom.description.endswith("(needs DEEPSEEK_API_KEY)")
