"""Which model a session uses: CLI, then environment, then config file, then offline.

Providers:
- `offline`: the embedded OfflineModel (the default when nothing is configured).
- `deepseek`: DeepSeek's API (`https://api.deepseek.com` unless a base URL is given); the key
  comes from DSH_API_KEY or DEEPSEEK_API_KEY.
- `openai`: any OpenAI-compatible server (llama.cpp, vLLM, Ollama...); needs a base URL, and
  takes an optional key from DSH_API_KEY.
- `scripted`: plays a scenario file (`scenario`), or a bundled scenario by name ("demo").

Environment: DSH_MODEL_PROVIDER, DSH_MODEL, DSH_BASE_URL, DSH_API_KEY, DEEPSEEK_API_KEY,
DSH_SCENARIO, and DSH_CONFIG (the config file path). The config file is TOML at
`platformdirs.user_config_dir("dsh")/config.toml` with a `[model]` table holding any of
`provider`, `model`, `base_url`, `api_key`, `scenario`.

When no provider is named, it is inferred from the most specific layer that said something:
a model named "offline" means offline, a base URL means `openai`, a model name or a DeepSeek key
means `deepseek`; otherwise offline. So `DEEPSEEK_API_KEY=... dsh-agent` just works, and
`--base-url URL --model NAME` reaches a local server.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast, get_args

import platformdirs

from agent.models.base import Model
from agent.models.offline import OfflineModel
from agent.models.openai_compat import (
    DEEPSEEK_BASE_URL,
    DEEPSEEK_DEFAULT_MODEL,
    OpenAICompatModel,
)
from agent.models.scripted import ScriptedModel, bundled_scenario, load_scenario

Provider: TypeAlias = Literal["offline", "deepseek", "openai", "scripted"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
DEEPSEEK_MODELS = ("deepseek-chat", "deepseek-reasoner")
UNAVAILABLE_META_KEY = "dsh.unavailable"
"""The `_meta` key on a model select value that cannot answer yet: why, as a short phrase."""
_FILE_KEYS = frozenset({"provider", "model", "base_url", "api_key", "scenario"})


class ConfigError(ValueError):
    """Settings that cannot build a model; the message says which setting and where."""


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """The resolved model choice. `deepseek_api_key` is kept apart so switching to a DeepSeek
    model never sends a local server's key to DeepSeek, or the other way round."""

    provider: Provider = "offline"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    deepseek_api_key: str | None = None
    scenario: str | None = None


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """One entry of the session's model select (an ACP config option value).

    `unavailable` says why the model cannot answer yet ("needs DEEPSEEK_API_KEY"), so a
    picker can mark it before the user sends a prompt to it; None when it can.
    """

    id: str
    name: str
    description: str
    settings: ModelSettings
    unavailable: str | None = None


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    """DSH_CONFIG, else the per-user config file."""
    env = os.environ if env is None else env
    override = env.get("DSH_CONFIG")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("dsh")) / "config.toml"


def read_config_file(path: Path) -> dict[str, str]:
    """The `[model]` table of a TOML config file; a missing file is an empty table."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"config {path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config {path}: invalid TOML: {error}") from None
    table = data.get("model", {})
    if not isinstance(table, dict):
        raise ConfigError(f"config {path}: [model] must be a table")
    unknown = sorted(set(table) - _FILE_KEYS)
    if unknown:
        expected = ", ".join(sorted(_FILE_KEYS))
        raise ConfigError(f"config {path}: unknown key model.{unknown[0]} (expected {expected})")
    for key, value in table.items():
        if not isinstance(value, str):
            raise ConfigError(f"config {path}: model.{key} must be a string")
    return cast(dict[str, str], table)


def _layers(
    cli: Mapping[str, str | None], env: Mapping[str, str], file: Mapping[str, str]
) -> list[dict[str, str]]:
    """The three layers as plain dicts of the common keys, highest precedence first."""
    env_layer = {
        "provider": env.get("DSH_MODEL_PROVIDER"),
        "model": env.get("DSH_MODEL"),
        "base_url": env.get("DSH_BASE_URL"),
        "api_key": env.get("DSH_API_KEY"),
        "scenario": env.get("DSH_SCENARIO"),
    }
    return [
        {key: value for key, value in layer.items() if value}
        for layer in (dict(cli), env_layer, dict(file))
    ]


def resolve_settings(
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    scenario: str | None = None,
    config_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> ModelSettings:
    """Merge CLI values (the keyword arguments), the environment and the config file."""
    env = os.environ if env is None else env
    path = Path(config_path).expanduser() if config_path else default_config_path(env)
    cli = {
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "api_key": api_key,
        "scenario": scenario,
    }
    layers = _layers(cli, env, read_config_file(path))

    def pick(key: str) -> tuple[str | None, int]:
        for rank, layer in enumerate(layers):
            if key in layer:
                return layer[key], rank
        return None, len(layers)

    explicit, provider_rank = pick("provider")
    model_name, model_rank = pick("model")
    url, url_rank = pick("base_url")
    scenario_path, scenario_rank = pick("scenario")
    key, _ = pick("api_key")
    deepseek_key = env.get("DEEPSEEK_API_KEY") or None
    if explicit is not None and explicit not in PROVIDERS:
        raise ConfigError(f"unknown model provider {explicit!r} (expected {', '.join(PROVIDERS)})")
    chosen: str
    # A provider named in a lower layer than a model, base URL or scenario does not override
    # them: `--base-url` on the command line beats `provider = "deepseek"` in the file.
    if explicit is not None and provider_rank <= min(model_rank, url_rank, scenario_rank):
        chosen = explicit
    elif model_name == "offline":
        chosen = "offline"
    elif scenario_path is not None and scenario_rank < min(model_rank, url_rank):
        chosen = "scripted"
    elif url is not None:
        chosen = "openai"
    elif model_name is not None or deepseek_key or key:
        chosen = "deepseek"
    else:
        chosen = explicit or "offline"
    if chosen == "deepseek":
        key = key or deepseek_key
        deepseek_key = key
    return ModelSettings(
        provider=cast(Provider, chosen),
        model=None if model_name == "offline" else model_name,
        base_url=url,
        api_key=key,
        deepseek_api_key=deepseek_key,
        scenario=scenario_path,
    )


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The model flags, for dsh-agent's CLI; pass the parsed values to `settings_from_args`."""
    group = parser.add_argument_group("model")
    group.add_argument("--provider", choices=PROVIDERS, help="model provider (default: inferred)")
    group.add_argument("--model", help="model name, e.g. deepseek-chat, or 'offline'")
    group.add_argument("--base-url", help="an OpenAI-compatible API base URL")
    group.add_argument("--scenario", help="a scenario file to play (scripted provider)")
    group.add_argument("--config", help="the TOML config file (default: DSH_CONFIG or per-user)")


def settings_from_args(
    args: argparse.Namespace, env: Mapping[str, str] | None = None
) -> ModelSettings:
    """Resolve settings from parsed `add_model_arguments` flags."""
    return resolve_settings(
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        scenario=args.scenario,
        config_path=args.config,
        env=env,
    )


def build_model(settings: ModelSettings, **overrides: Any) -> Model:
    """Make the model; `overrides` go to OpenAICompatModel (e.g. retry_base_delay in tests)."""
    if settings.provider == "offline":
        return OfflineModel()
    if settings.provider == "scripted":
        if not settings.scenario:
            raise ConfigError("the scripted provider needs a scenario (--scenario or DSH_SCENARIO)")
        if os.sep not in settings.scenario and not settings.scenario.endswith(".json"):
            return ScriptedModel(bundled_scenario(settings.scenario))
        return ScriptedModel(load_scenario(Path(settings.scenario).expanduser()))
    if settings.provider == "deepseek":
        return OpenAICompatModel(
            model=settings.model or DEEPSEEK_DEFAULT_MODEL,
            base_url=settings.base_url or DEEPSEEK_BASE_URL,
            api_key=settings.api_key,
            label="DeepSeek",
            require_api_key=True,
            api_key_hint="set DEEPSEEK_API_KEY",
            **overrides,
        )
    if not settings.base_url:
        raise ConfigError("the openai provider needs a base URL (--base-url or DSH_BASE_URL)")
    return OpenAICompatModel(
        model=settings.model or "default",
        base_url=settings.base_url,
        api_key=settings.api_key,
        api_key_hint="set DSH_API_KEY",
        **overrides,
    )


def choice_id(settings: ModelSettings) -> str:
    """The select value that stands for these settings."""
    if settings.provider == "offline":
        return "offline"
    if settings.provider == "scripted":
        return f"scripted:{settings.scenario}"
    model = settings.model or (
        DEEPSEEK_DEFAULT_MODEL if settings.provider == "deepseek" else "default"
    )
    standard = settings.provider == "deepseek" and settings.base_url in (None, DEEPSEEK_BASE_URL)
    if standard or model not in ("offline", *DEEPSEEK_MODELS):
        return model
    return f"custom:{model}"


def model_choices(configured: ModelSettings) -> list[ModelChoice]:
    """Offline, the DeepSeek models, and the configured model when it is none of those.

    Always pass the settings resolved at startup, not the current ones, so the configured
    model stays in the list after switching away from it.
    """
    offline = "No model: drive the tools by hand (type help)"
    choices = [ModelChoice("offline", "Offline", offline, ModelSettings())]
    for name in DEEPSEEK_MODELS:
        deepseek = ModelSettings(
            provider="deepseek",
            model=name,
            api_key=configured.deepseek_api_key,
            deepseek_api_key=configured.deepseek_api_key,
        )
        missing = unavailable(deepseek)
        description = "DeepSeek API" + (f" ({missing})" if missing else "")
        choices.append(ModelChoice(name, name, description, deepseek, missing))
    current = choice_id(configured)
    if all(choice.id != current for choice in choices):
        where = configured.scenario if configured.provider == "scripted" else configured.base_url
        description = f"{configured.provider} at {where}" if where else configured.provider
        missing = unavailable(configured)
        if missing:
            description += f" ({missing})"
        choices.append(ModelChoice(current, current, description, configured, missing))
    return choices


def unavailable(settings: ModelSettings) -> str | None:
    """Why a model with these settings cannot answer yet, or None when it can: DeepSeek
    refuses every request without a key. (An OpenAI-compatible server's key is optional: a
    local server takes none.)"""
    if settings.provider == "deepseek" and not settings.api_key:
        return "needs DEEPSEEK_API_KEY"
    return None


def switch(configured: ModelSettings, choice: str) -> ModelSettings:
    """The settings for select value `choice`; an unknown value is a ConfigError."""
    options = model_choices(configured)
    for option in options:
        if option.id == choice:
            return option.settings
    known = ", ".join(option.id for option in options)
    raise ConfigError(f"unknown model {choice!r} (choose one of {known})")
