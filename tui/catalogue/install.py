"""`dsh-tui agents install ID`: download a registry agent's binary archive for this platform,
check it is one, and unpack it into the user's data dir, one folder per version.

The archive's SHA-256 is computed while it downloads and reported, so the user can compare it
with the release's. Nothing is left half-installed: the archive is unpacked beside the target
and moved into place only once its command is there. Pure: no Textual, no SDK.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tui.catalogue.registry import RegistryAgent, binary_dir, platform_key

CHUNK_BYTES = 64 * 1024
DOWNLOAD_TIMEOUT_S = 30.0
Progress = Callable[[int, int | None], None]  # bytes so far, total when known


class InstallFailed(Exception):
    """Why the agent could not be installed."""


@dataclass(frozen=True)
class Installed:
    program: Path
    sha256: str
    size: int


def _target(agent: RegistryAgent, platform_name: str) -> tuple[str, str]:
    binaries = agent.distribution.get("binary")
    target = binaries.get(platform_name) if isinstance(binaries, dict) else None
    if not isinstance(target, dict):
        raise InstallFailed(f"{agent.id} has no binary for {platform_name}")
    archive, cmd = target.get("archive"), target.get("cmd")
    if not isinstance(archive, str) or not isinstance(cmd, str):
        raise InstallFailed(f"{agent.id}: the registry entry for {platform_name} is incomplete")
    return archive, cmd


def download(url: str, into: Path, progress: Progress, timeout: float) -> tuple[str, int]:
    """Write `url` to `into`; its SHA-256 and size. Raises InstallFailed."""
    digest = hashlib.sha256()
    size = 0
    request = urllib.request.Request(url, headers={"User-Agent": "dsh-tui"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, into.open("wb") as out:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            progress(0, total)
            while chunk := response.read(CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
                progress(size, total)
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise InstallFailed(
            f"could not download {url}: {getattr(error, 'reason', error)}"
        ) from error
    return digest.hexdigest(), size


def unpack(archive: Path, url: str, cmd: str, into: Path) -> None:
    """Unpack by the URL's suffix (zip, tar.gz/tgz, tar.bz2/tbz2), or keep a raw binary as
    `cmd`. Members that would land outside `into` are refused."""
    name = PurePosixPath(url.split("?")[0]).name.lower()
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(archive) as bundle:
                for member in bundle.namelist():
                    if not (into / member).resolve().is_relative_to(into.resolve()):
                        raise InstallFailed(f"{url}: {member} would land outside the folder")
                bundle.extractall(into)
        elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2")):
            with tarfile.open(archive) as bundle:
                bundle.extractall(into, filter="data")
        else:
            shutil.copyfile(archive, into / PurePosixPath(cmd).name)
    except (zipfile.BadZipFile, tarfile.TarError, OSError) as error:
        raise InstallFailed(f"{url}: not a usable archive: {error}") from error


def install(
    agent: RegistryAgent,
    data_dir: Path,
    progress: Progress,
    platform_name: str | None = None,
    timeout: float = DOWNLOAD_TIMEOUT_S,
) -> Installed:
    """Raises InstallFailed; an existing install of the same version is replaced."""
    url, cmd = _target(agent, platform_name or platform_key())
    target = binary_dir(data_dir, agent)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".install-") as scratch:
        work = Path(scratch)
        archive = work / "archive"
        sha256, size = download(url, archive, progress, timeout)
        unpacked = work / "unpacked"
        unpacked.mkdir()
        unpack(archive, url, cmd, unpacked)
        program = unpacked / PurePosixPath(cmd)
        if not program.is_file():
            raise InstallFailed(f"{url}: the archive has no {cmd}")
        program.chmod(program.stat().st_mode | 0o755)
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)
    return Installed(target / PurePosixPath(cmd), sha256, size)


def bar(done: int, total: int | None, width: int = 30) -> str:
    """`[#######...........]  38%  1.2 MB / 3.1 MB`, or just the size when the total is unknown."""
    mb = done / 1_000_000
    if not total:
        return f"{mb:.1f} MB"
    filled = min(width, done * width // total)
    percent = done * 100 // total
    shown = f"{mb:.1f} MB / {total / 1_000_000:.1f} MB"
    return f"[{'#' * filled}{'.' * (width - filled)}] {percent:3d}%  {shown}"
