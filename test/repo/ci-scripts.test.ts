/**
 * The checkout's own scripts (issue 29, item 20):
 * - the packed package.json has no `prepare` (npm 11 warns about it in every project installing the
 *   tarball), nor the prepack/postpack that strip it; the checkout's package.json is put back as it was;
 * - `.ci/engines.sh down` from a new shell, without the variables `source .ci/engines.sh` exported, finds
 *   the engines in the checkout's default folder and stops both.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../support/project.js";

const ENGINES = join(ROOT, ".ci", "engines.sh");

/** An environment without the engines' variables (a new shell), with its own temporary folder. */
function freshShell(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.A2A_TEST_ENGINES_DIR;
  delete env.A2A_TEST_POSTGRES_URL;
  delete env.A2A_TEST_REDIS_URL;
  delete env.A2A_TEST_MYSQL_URL;
  return env;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the packed package.json (issue 29, item 20)", () => {
  it("has no prepare, prepack or postpack script, and the checkout's package.json is restored byte for byte", () => {
    const dir = tempDir();
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBe("npm run build");
    // The checkout's scripts, with a build that has nothing to compile here.
    const text = JSON.stringify({ ...manifest, scripts: { ...manifest.scripts, build: "node -e 0" } }, null, 2) + "\n";
    writeFileSync(join(dir, "package.json"), text);
    mkdirSync(join(dir, ".ci"));
    copyFileSync(join(ROOT, ".ci", "packed-manifest.mjs"), join(dir, ".ci", "packed-manifest.mjs"));
    const pack = spawnSync("npm", ["pack", "--silent"], { cwd: dir, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz")) as string;
    const packed = JSON.parse(spawnSync("tar", ["xzf", tarball, "-O", "package/package.json"], { cwd: dir, encoding: "utf8" }).stdout) as { scripts: Record<string, string> };
    expect(Object.keys(packed.scripts)).not.toEqual(expect.arrayContaining(["prepare"]));
    for (const name of ["prepare", "prepack", "postpack"]) expect(packed.scripts).not.toHaveProperty(name);
    expect(packed.scripts.build).toBe("node -e 0");
    expect(readFileSync(join(dir, "package.json"), "utf8")).toBe(text);
    expect(existsSync(join(dir, "package.json.before-pack"))).toBe(false);
  });
});

describe(".ci/engines.sh down from a new shell (issue 29, item 20)", () => {
  it("finds the engines in the checkout's default folder and stops them", async () => {
    const tmp = tempDir();
    const env = freshShell(tmp);
    const where = spawnSync("bash", [ENGINES, "dir"], { env, encoding: "utf8" });
    expect(where.status, where.stderr).toBe(0);
    const dir = where.stdout.trim();
    expect(dir.startsWith(join(tmp, "a2a-engines-"))).toBe(true);
    expect(spawnSync("bash", [ENGINES, "dir"], { env, encoding: "utf8" }).stdout.trim()).toBe(dir);
    // A Redis as `up` records it: its pid file in the folder (a stand-in process: no engine needed).
    // (Started through a shell that exits: the stand-in is not our child, so nothing keeps it as a zombie.)
    const pid = Number(spawnSync("sh", ["-c", "sleep 300 >/dev/null 2>&1 & echo $!"], { encoding: "utf8" }).stdout.trim());
    expect(alive(pid)).toBe(true);
    mkdirSync(join(dir, "redis"), { recursive: true });
    writeFileSync(join(dir, "redis", "redis.pid"), `${pid}\n`);
    const down = spawnSync("bash", [ENGINES, "down"], { env: freshShell(tmp), encoding: "utf8" });
    expect(down.status, down.stderr).toBe(0);
    expect(down.stderr).toContain("engines: stopped redis");
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    const again = spawnSync("bash", [ENGINES, "down"], { env: freshShell(tmp), encoding: "utf8" });
    expect(again.status).toBe(0);
    expect(again.stderr).toContain(`engines: none running (nothing in ${dir})`);
  });

  const installed = existsSync("/usr/lib/postgresql") && spawnSync("sh", ["-c", "command -v redis-server"]).status === 0 && (existsSync("/usr/sbin/mariadbd") || existsSync("/usr/sbin/mysqld"));
  it.skipIf(!installed)("with the real engines (PostgreSQL, Redis and MariaDB installed): up in one shell, down in another stops them all", () => {
    const tmp = tempDir();
    chmodSync(tmp, 0o755); // as root, PostgreSQL runs as its own user, who must reach the folder
    const up = spawnSync("bash", ["-c", `source ${JSON.stringify(ENGINES)} >/dev/null && echo "$A2A_TEST_POSTGRES_URL $A2A_TEST_REDIS_URL $A2A_TEST_MYSQL_URL"`], { env: freshShell(tmp), encoding: "utf8", timeout: 120_000 });
    expect(up.status, up.stderr).toBe(0);
    const [pgUrl, redisUrl, mysqlUrl] = up.stdout.trim().split(" ") as [string, string, string];
    const listening = (url: string) => spawnSync(process.execPath, ["-e", `const u=new URL(${JSON.stringify(url)});require("net").connect(+u.port,"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))`]).status === 0;
    expect(listening(pgUrl)).toBe(true);
    expect(listening(redisUrl)).toBe(true);
    expect(listening(mysqlUrl)).toBe(true);
    const down = spawnSync("bash", [ENGINES, "down"], { env: freshShell(tmp), encoding: "utf8", timeout: 60_000 });
    expect(down.status, down.stderr).toBe(0);
    expect(down.stderr).toContain("engines: stopped postgres");
    expect(down.stderr).toContain("engines: stopped redis");
    expect(down.stderr).toContain("engines: stopped mysql (MariaDB)");
    expect(listening(pgUrl)).toBe(false);
    expect(listening(redisUrl)).toBe(false);
    expect(listening(mysqlUrl)).toBe(false);
  }, 150_000);
});
