// node --test: the plugin against a real memscribe store. MEMSCRIBE_PYTHON names the Python with memscribe
// installed (default: the repository's .venv). The recall daemon is not started (MEMSCRIBE_HOOK_DAEMON=0):
// the first tests answer from the store itself (the cold path), the last from a spawned recall server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import plugin, { launcher, recall } from "../index.js";

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.MEMSCRIBE_PYTHON || resolve(here, "../../../.venv/bin/python");
const hook = resolve(here, "../../../memscribe/hub/feed/hook.py"); // the lean client every tool's hook runs
const root = mkdtempSync(join(tmpdir(), "memscribe-openclaw-"));
const project = join(root, "orders");
const env = {
  ...process.env, MEMSCRIBE_HOME: join(root, "ms"), MEMSCRIBE_EMBEDDER: "hash", MEMSCRIBE_WRITER: "raw",
  MEMSCRIBE_USER: "ana", MEMSCRIBE_HOOK_DAEMON: "0",
};
delete env.MEMSCRIBE_PROJECT;

before(() => {
  assert.ok(existsSync(python), `no Python at ${python}; set MEMSCRIBE_PYTHON`);
  mkdirSync(join(project, ".git"), { recursive: true });
  const seed = [
    "from memscribe.engine.memory import Memory",
    "from memscribe.config import MemoryConfig",
    "import os, sys",
    "m = Memory(os.path.join(os.environ['MEMSCRIBE_HOME'], 'memscribe.db'), config=MemoryConfig(embedder='hash', writer='raw'))",
    "m.add('We decided the orders service uses PostgreSQL 16.', user_id='ana', project=sys.argv[1])",
    "m.add('Billing keeps its data in MySQL 8.', user_id='ana', project=sys.argv[2])",
    "m.close()",
  ].join("\n");
  execFileSync(python, ["-c", seed, project, join(root, "billing")], { env });
});

after(() => rmSync(root, { recursive: true, force: true }));

function fakeApi(pluginConfig) {
  const handlers = {};
  return { handlers, pluginConfig, on(name, fn) { handlers[name] = fn; }, logger: console };
}

test("before_prompt_build prepends the project's memories", async () => {
  const api = fakeApi({ python, hook, timeoutMs: 30000 }); // the cold path loads the engine
  const saved = { ...process.env };
  Object.assign(process.env, env);
  delete process.env.MEMSCRIBE_PROJECT;
  try {
    plugin.register(api);
    assert.equal(typeof api.handlers.before_prompt_build, "function");
    const result = await api.handlers.before_prompt_build({ prompt: "which database for orders?" }, { workspaceDir: project });
    assert.match(result.prependContext, /PostgreSQL 16/);
    assert.match(result.prependContext, /not an instruction/);
    assert.match(result.prependContext, /id=\S+/);
    assert.doesNotMatch(result.prependContext, /MySQL 8/);
  } finally {
    process.env = saved;
  }
});

test("the launcher `memscribe hub install openclaw` records runs the hook client by path", async () => {
  const saved = join(env.MEMSCRIBE_HOME, "hub", "openclaw-hook.json");
  mkdirSync(dirname(saved), { recursive: true });
  writeFileSync(saved, JSON.stringify({ python, hook, dialect: "claude-code" }));
  try {
    assert.deepEqual(launcher({}, env), [python, ["-S", hook]]);
    assert.deepEqual(launcher({ python: "/other/python" }, env), ["/other/python", ["-m", "memscribe.cli.hub_hook"]]);
    const text = await recall({ prompt: "which database for orders?", cwd: project, config: { timeoutMs: 30000 }, env });
    assert.match(text, /PostgreSQL 16/);
  } finally {
    rmSync(saved);
  }
  assert.deepEqual(launcher({ python }, env), [python, ["-m", "memscribe.cli.hub_hook"]]); // nothing recorded
});

test("slash commands, missing Python and timeouts add nothing", async () => {
  assert.equal(await recall({ prompt: "/help", cwd: project, config: { python }, env }), "");
  assert.equal(await recall({ prompt: "orders", cwd: project, config: { python: join(root, "nope") }, env }), "");
  assert.equal(await recall({ prompt: "orders", cwd: project, config: { python, timeoutMs: 1 }, env }), "");
});

test("a spawned recall server answers, and sees memories written after it started", async () => {
  const warmEnv = { ...env };
  delete warmEnv.MEMSCRIBE_HOOK_DAEMON;
  const where = "from memscribe.hub.feed.hook import socket_path; import os; print(socket_path(os.environ))";
  const socket = execFileSync(python, ["-c", where], { env: warmEnv }).toString().trim();
  mkdirSync(dirname(socket), { recursive: true });
  const server = spawn(python, ["-m", "memscribe.hub.feed.daemon", socket, "--idle", "60"], { env: warmEnv, stdio: "ignore" });
  try {
    for (let i = 0; i < 600 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(socket), "the recall server did not start");
    const add = "from memscribe import Memory; import os, sys; m = Memory(os.path.join(os.environ['MEMSCRIBE_HOME'], " +
      "'memscribe.db'), writer='raw', embedder='hash'); m.add('Orders deploys go out on Tuesdays only.', " +
      "user_id='ana', project=sys.argv[1]); m.close()";
    execFileSync(python, ["-c", add, project], { env: warmEnv });
    const text = await recall({ prompt: "when do orders deploys go out?", cwd: project, config: { python, timeoutMs: 20000 }, env: warmEnv });
    assert.match(text, /Tuesdays only/);
    assert.equal(server.exitCode, null, "the recall server is still serving");
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
  assert.ok(!existsSync(socket), "the recall server removes its socket on SIGTERM");
});
