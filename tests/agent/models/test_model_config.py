"""Model selection: CLI over environment over config file over the offline default."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from agent.models.config import (
    ConfigError,
    ModelSettings,
    add_model_arguments,
    build_model,
    choice_id,
    default_config_path,
    model_choices,
    resolve_settings,
    settings_from_args,
    switch,
)
from agent.models.offline import OfflineModel
from agent.models.openai_compat import OpenAICompatModel
from agent.models.scripted import ScriptedModel


@pytest.fixture
def no_file(tmp_path: Path) -> Path:
    return tmp_path / "missing.toml"


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_configured_is_offline(no_file: Path) -> None:
    settings = resolve_settings(config_path=no_file, env={})
    assert settings == ModelSettings()
    assert isinstance(build_model(settings), OfflineModel)


def test_a_deepseek_key_alone_selects_deepseek_chat(no_file: Path) -> None:
    settings = resolve_settings(config_path=no_file, env={"DEEPSEEK_API_KEY": "sk-d"})
    assert settings.provider == "deepseek" and settings.api_key == "sk-d"
    model = build_model(settings)
    assert isinstance(model, OpenAICompatModel)
    assert model.name == "deepseek-chat" and model.base_url == "https://api.deepseek.com"


def test_cli_base_url_and_model_reach_a_compatible_server(no_file: Path) -> None:
    settings = resolve_settings(
        base_url="http://localhost:11434/v1",
        model="llama3",
        config_path=no_file,
        env={"DEEPSEEK_API_KEY": "sk-d", "DSH_API_KEY": "local"},
    )
    assert settings.provider == "openai"
    assert settings.api_key == "local" and settings.deepseek_api_key == "sk-d"
    model = build_model(settings)
    assert isinstance(model, OpenAICompatModel) and model.name == "llama3"
    assert model.base_url == "http://localhost:11434/v1"


def test_precedence_cli_then_env_then_file(tmp_path: Path) -> None:
    path = write_config(
        tmp_path, '[model]\nprovider = "deepseek"\nmodel = "from-file"\napi_key = "k"\n'
    )
    assert resolve_settings(config_path=path, env={}).model == "from-file"
    env = {"DSH_MODEL": "from-env"}
    assert resolve_settings(config_path=path, env=env).model == "from-env"
    assert resolve_settings(model="from-cli", config_path=path, env=env).model == "from-cli"
    # A base URL on the command line beats the file's provider.
    override = resolve_settings(base_url="http://127.0.0.1:8080/v1", config_path=path, env=env)
    assert override.provider == "openai"


def test_explicit_provider_and_offline_model_win(no_file: Path) -> None:
    env = {"DEEPSEEK_API_KEY": "sk-d", "DSH_MODEL_PROVIDER": "offline"}
    assert resolve_settings(config_path=no_file, env=env).provider == "offline"
    assert resolve_settings(model="offline", config_path=no_file, env={}).provider == "offline"
    with pytest.raises(ConfigError, match="unknown model provider 'gpt'"):
        resolve_settings(provider="gpt", config_path=no_file, env={})


def test_scenario_selects_the_scripted_provider(no_file: Path, tmp_path: Path) -> None:
    settings = resolve_settings(config_path=no_file, env={"DSH_SCENARIO": "demo"})
    assert settings.provider == "scripted"
    model = build_model(settings)
    assert isinstance(model, ScriptedModel) and model.name == "scripted:demo"
    scenario = tmp_path / "s.json"
    scenario.write_text('{"steps": []}', encoding="utf-8")
    from_file = build_model(resolve_settings(scenario=str(scenario), config_path=no_file, env={}))
    assert from_file.name == "scripted:s"


def test_config_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = write_config(tmp_path, "[model\n")
    with pytest.raises(ConfigError, match=f"config {bad}: invalid TOML"):
        resolve_settings(config_path=bad, env={})
    typo = write_config(tmp_path, '[model]\nmodle = "x"\n')
    with pytest.raises(ConfigError, match=r"unknown key model\.modle"):
        resolve_settings(config_path=typo, env={})
    wrong = write_config(tmp_path, "[model]\nmodel = 3\n")
    with pytest.raises(ConfigError, match=r"model\.model must be a string"):
        resolve_settings(config_path=wrong, env={})


def test_config_path_default_and_override(tmp_path: Path) -> None:
    assert default_config_path({}).name == "config.toml"
    assert default_config_path({}).parent.name == "dsh"
    path = write_config(tmp_path, '[model]\nmodel = "offline"\n')
    assert default_config_path({"DSH_CONFIG": str(path)}) == path
    assert resolve_settings(env={"DSH_CONFIG": str(path)}).provider == "offline"


def test_build_errors(no_file: Path) -> None:
    with pytest.raises(ConfigError, match="needs a base URL"):
        build_model(ModelSettings(provider="openai", model="x"))
    with pytest.raises(ConfigError, match="needs a scenario"):
        build_model(ModelSettings(provider="scripted"))


def test_choices_and_switch_keep_the_configured_model(no_file: Path) -> None:
    configured = resolve_settings(
        base_url="http://localhost:8080/v1",
        model="qwen",
        config_path=no_file,
        env={"DEEPSEEK_API_KEY": "sk-d", "DSH_API_KEY": "local"},
    )
    choices = model_choices(configured)
    assert [choice.id for choice in choices] == [
        "offline",
        "deepseek-chat",
        "deepseek-reasoner",
        "qwen",
    ]
    assert choice_id(configured) == "qwen"
    reasoner = switch(configured, "deepseek-reasoner")
    assert reasoner.provider == "deepseek" and reasoner.api_key == "sk-d"
    assert build_model(reasoner).name == "deepseek-reasoner"
    assert switch(configured, "offline").provider == "offline"
    assert switch(configured, "qwen") == configured
    with pytest.raises(ConfigError, match="unknown model 'gpt-9'"):
        switch(configured, "gpt-9")


def test_choices_without_key_say_so_and_default_is_selected(no_file: Path) -> None:
    settings = resolve_settings(config_path=no_file, env={})
    choices = model_choices(settings)
    assert [choice.id for choice in choices] == ["offline", "deepseek-chat", "deepseek-reasoner"]
    assert "needs DEEPSEEK_API_KEY" in choices[1].description
    assert choice_id(settings) == "offline"


def test_cli_flags_round_trip(no_file: Path) -> None:
    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    args = parser.parse_args(["--model", "deepseek-reasoner", "--config", str(no_file)])
    settings = settings_from_args(args, env={"DEEPSEEK_API_KEY": "sk-d"})
    assert settings.provider == "deepseek" and settings.model == "deepseek-reasoner"


def test_no_textual_import_in_agent_models() -> None:
    folder = Path(__file__).parents[3] / "agent" / "models"
    for path in folder.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "import textual" not in source and "from textual" not in source, path
