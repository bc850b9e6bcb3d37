// OpenClaw plugin for memscribe: before each prompt is built, ask memscribe's recall hook for the memories of
// this workspace's project that match the user's message, and prepend them as context (quoted data with ids,
// framed as background, not instructions). The hook answers from memscribe's warm recall daemon over a local
// Unix socket, starting it when needed. Recall fails open: any error or timeout adds nothing.
import { spawn } from "node:child_process";

const DEFAULTS = { python: "python3", budget: 600, timeoutMs: 3000 };

/** Run `python -m memscribe.cli.hub_hook claude-code` with a UserPromptSubmit payload; resolve to the text. */
export function recall({ prompt, cwd, config = {}, env = process.env }) {
  const opts = { ...DEFAULTS, ...config };
  return new Promise((resolve) => {
    if (!prompt || !prompt.trim() || prompt.trim().startsWith("/")) return resolve("");
    const args = ["-m", "memscribe.cli.hub_hook", "claude-code", "--budget", String(opts.budget)];
    const child = spawn(opts.python, args, { cwd: cwd || process.cwd(), env, stdio: ["pipe", "pipe", "ignore"] });
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
