"""The scene router: chat, working or coding, per episode.

No tool activity → ``chat`` with no model call. Tool activity → rules score coding signals (edit tools on
code files, patches and unified diffs, git and build commands) against working signals (web search, fetch,
documents, URLs); a clear winner decides. Only when the rules cannot tell, and a chat model is given, one
short call with a tiny prompt decides. Every decision carries its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

from memscribe.core.records import Episode, Usage
from memscribe.errors import MemscribeError
from memscribe.providers.chat import ChatModel
from memscribe.scenes.prompts import ROUTER_PROMPT, ROUTER_PROMPT_VERSION, ROUTER_SCHEMA
from memscribe.scenes.tools import ToolUse, command_of, has_tool_activity, paths_of, string_values, tool_uses, urls_of

__all__ = ["SCENES", "SceneDecision", "is_code_path", "looks_like_patch", "route_scene", "score_scene"]

SCENES: Final = ("chat", "working", "coding")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CODE_EXTENSIONS: Final = _words(
    ".py .pyi .js .jsx .ts .tsx .mjs .cjs .go .rs .java .kt .kts .scala .c .h .cc .cpp .hpp .cs .rb .php "
    ".swift .m .mm .sh .bash .zsh .ps1 .sql .lua .r .jl .ex .exs .erl .hs .ml .clj .dart .vue .svelte "
    ".toml .yaml .yml .ini .cfg .gradle .cmake .proto .tf .nix .dockerfile .ipynb"
)
CODE_FILENAMES: Final = frozenset({"makefile", "dockerfile", "cmakelists.txt", "justfile", "rakefile", "gemfile"})
DOC_EXTENSIONS: Final = _words(".pdf .doc .docx .md .txt .rtf .odt .csv .tsv .xls .xlsx .ppt .pptx .html .htm")
_EDIT_WORDS: Final = _words(
    "edit multiedit write patch apply_patch str_replace replace insert create_file str_replace_editor "
    "str_replace_based_edit_tool notebookedit editfile writefile"
)
_WEB_WORDS: Final = _words(
    "web search websearch webfetch fetch browse browser url http google bing crawl scrape wikipedia arxiv news"
)
_DOC_WORDS: Final = frozenset({"pdf", "document", "docs", "doc", "spreadsheet", "sheet", "slides", "notion", "drive"})
_GIT: Final = re.compile(r"(?:^|[;&|]\s*|\s)git\s+\w", re.MULTILINE)
_DEV_COMMAND: Final = re.compile(
    r"(?:^[ \t]*|[;&|]\s*)(?:pytest|python -m pytest|npm|npx|yarn|pnpm|cargo|make|go (?:build|test|run|mod)|mvn"
    r"|gradle|tsc|eslint|ruff|mypy|black|uv|poetry|pip install|cmake|dotnet|bundle|rake|mix|stack|jest)\b",
    re.MULTILINE,
)
_DIFF: Final = re.compile(r"^--- \S.*\n\+\+\+ \S.*\n@@ ", re.MULTILINE)
_TRANSCRIPT_CHARS: Final = 300


@dataclass(frozen=True)
class SceneDecision:
    """Which scene an episode belongs to, why, and what deciding cost (a model call only when rules failed)."""

    scene: str
    reason: str
    usage: Usage | None = None

    @property
    def asked_model(self) -> bool:
        return self.usage is not None and self.usage.calls > 0


def is_code_path(path: str) -> bool:
    """True for a source, build or config file of a code base."""
    pure = PurePosixPath(path.replace("\\", "/"))
    return pure.suffix.casefold() in CODE_EXTENSIONS or pure.name.casefold() in CODE_FILENAMES


def looks_like_patch(text: str) -> bool:
    """True for an apply_patch envelope or a unified diff."""
    return "*** Begin Patch" in text or bool(_DIFF.search(text))


def score_scene(uses: list[ToolUse]) -> tuple[int, int, list[str]]:
    """(coding score, working score, the signals that scored), from rules over the tool calls."""
    coding = working = 0
    signals: list[str] = []
    for use in uses:
        c, w, why = _score_use(use)
        coding, working = coding + c, working + w
        if why and why not in signals:
            signals.append(why)
    return coding, working, signals


def _score_use(use: ToolUse) -> tuple[int, int, str | None]:
    words, paths = use.words, paths_of(use)
    if any(looks_like_patch(text) for text in string_values(use.arguments, limit=16)):
        return 3, 0, f"patch or unified diff in {use.name}"
    code_paths = [p for p in paths if is_code_path(p)]
    if words & _EDIT_WORDS:
        if code_paths or not paths:
            return 2, 0, f"edit tool {use.name}" + (f" on {code_paths[0]}" if code_paths else "")
        return 0, 1, f"edit tool {use.name} on a document"
    command = command_of(use)
    if command is not None:
        if _GIT.search(command):
            return 2, 0, f"git command in {use.name}"
        if _DEV_COMMAND.search(command):
            return 1, 0, f"build or test command in {use.name}"
        return (0, 1, f"web request in {use.name}") if urls_of(use) else (0, 0, None)
    if words & _WEB_WORDS:
        return 0, 2, f"web tool {use.name}"
    if words & _DOC_WORDS or any(PurePosixPath(p).suffix.casefold() in DOC_EXTENSIONS for p in paths):
        return 0, 1, f"document tool {use.name}"
    if code_paths:
        return 1, 0, f"{use.name} on code file {code_paths[0]}"
    return (0, 1, f"URL in {use.name}") if urls_of(use) else (0, 0, None)


def route_scene(episode: Episode, chat: ChatModel | None = None) -> SceneDecision:
    """The scene for ``episode``: an explicit ``metadata["scene"]`` wins, then the rules, then one model call."""
    explicit = episode.metadata.get("scene")
    if isinstance(explicit, str) and explicit in SCENES:
        return SceneDecision(explicit, f"scene {explicit!r} given by the caller")
    if not has_tool_activity(episode):
        return SceneDecision("chat", "no tool calls")
    uses = tool_uses(episode)
    coding, working, signals = score_scene(uses)
    if any(looks_like_patch(m.content) for m in episode.messages):
        coding, signals = coding + 3, [*signals, "unified diff in a message"]
    evidence = "; ".join(signals[:4])
    if coding and coding >= 2 * working:
        return SceneDecision("coding", f"coding signals outweigh working ({coding} vs {working}): {evidence}")
    if working and working >= 2 * coding:
        return SceneDecision("working", f"working signals outweigh coding ({working} vs {coding}): {evidence}")
    fallback = "coding" if coding > working else "working"
    detail = f"rules cannot tell (coding {coding}, working {working})"
    if chat is None:
        return SceneDecision(fallback, f"{detail}; no model to ask, took {fallback}")
    return _ask_model(episode, uses, chat, fallback, detail)


def _ask_model(episode: Episode, uses: list[ToolUse], chat: ChatModel, fallback: str, detail: str) -> SceneDecision:
    first_user = next((m.content for m in episode.messages if m.role == "user" and m.content.strip()), "")
    names = ", ".join(dict.fromkeys(u.name for u in uses)) or "(tool results only)"
    prompt = f"Tools used: {names}\nFirst request: {first_user[:_TRANSCRIPT_CHARS]}"
    messages = [{"role": "system", "content": ROUTER_PROMPT}, {"role": "user", "content": prompt}]
    try:
        result = chat.complete(messages, schema=ROUTER_SCHEMA, max_tokens=16)
    except MemscribeError as error:  # a routing failure must not fail the write: the rules' best guess stands
        return SceneDecision(fallback, f"{detail}; the model failed ({type(error).__name__}), took {fallback}")
    scene = str(result.parsed["scene"])
    usage = Usage(
        model=result.usage.model or result.model,
        prompt_version=ROUTER_PROMPT_VERSION,
        calls=max(result.usage.calls, 1),
        tokens_in=result.usage.tokens_in,
        tokens_out=result.usage.tokens_out,
        latency_ms=result.usage.latency_ms,
    )
    return SceneDecision(scene, f"{detail}; the model chose {scene}", usage)
