// OpenClaw plugin for memscribe: before each prompt is built, ask memscribe's recall hook for the memories of
// this workspace's project that match the user's message, and prepend them as context (quoted data with ids,
// framed as background, not instructions). The hook answers from memscribe's warm recall daemon over a local
// Unix socket, starting it when needed. Recall fails open: any error or timeout adds nothing.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const DEFAULTS = { budget: 600, timeoutMs: 3000 };

/** memscribe's home, found as memscribe finds it (MEMSCRIBE_HOME, else the platform's data directory). */
export function memscribeHome(env = process.env) {
  if (env.MEMSCRIBE_HOME) return env.MEMSCRIBE_HOME.replace(/^~(?=$|\/)/, homedir());
  if (process.platform === "darwin") return join(homedir(), "Library", "Application Support", "memscribe");
  if (process.platform === "win32") return join(env.LOCALAPPDATA || join(homedir(), "AppData", "Local"), "memscribe");
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "memscribe");
}

/**
 * The command that runs the recall hook: [interpreter, args]. The same launcher as every other tool's hook,
 * `PYTHON -S …/memscribe/hub/feed/hook.py`, from the plugin config (`python`, `hook`) or from the file
 * `memscribe hub install openclaw` writes (`<memscribe home>/hub/openclaw-hook.json`); without either, the
 * older `python -m memscribe.cli.hub_hook`.
 */
export function launcher(config = {}, env = process.env) {
  let saved = {};
  try {
    saved = JSON.parse(readFileSync(join(memscribeHome(env), "hub", "openclaw-hook.json"), "utf8")) || {};
  } catch {
    saved = {};
  }
  if (config.hook) return [config.python || saved.python || "python3", ["-S", config.hook]];
  if (saved.python && saved.hook && (!config.python || config.python === saved.python)) {
    return [saved.python, ["-S", saved.hook]];
  }
  return [config.python || "python3", ["-m", "memscribe.cli.hub_hook"]];
}

/** Run the recall hook (Claude Code dialect) with a UserPromptSubmit payload; resolve to the context text. */
export function recall({ prompt, cwd, config = {}, env = process.env }) {
  const opts = { ...DEFAULTS, ...config };
  return new Promise((resolve) => {
    if (!prompt || !prompt.trim() || prompt.trim().startsWith("/")) return resolve("");
    const [python, head] = launcher(config, env);
    const args = [...head, "claude-code", "--budget", String(opts.budget)];
    const child = spawn(python, args, { cwd: cwd || process.cwd(), env, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    const timer = setTimeout(() => { child.kill("SIGKILL"); resolve(""); }, opts.timeoutMs);
    child.on("error", () => { clearTimeout(timer); resolve(""); });
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out)?.hookSpecificOutput?.additionalContext || "");
      } catch {
        resolve("");
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ hook_event_name: "UserPromptSubmit", cwd: cwd || process.cwd(), prompt }));
  });
}

const plugin = {
  id: "memscribe",
  name: "memscribe",
  register(api) {
    const config = api.pluginConfig || {};
    api.on("before_prompt_build", async (event, ctx) => {
      const text = await recall({ prompt: event?.prompt, cwd: ctx?.workspaceDir, config });
      return text ? { prependContext: text } : undefined;
    });
  },
};

export default plugin;
