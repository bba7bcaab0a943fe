import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";

/**
 * Runs `work` now and again whenever one of `paths` changes (files, or folders watched recursively),
 * with a short debounce. Editors save by rename as often as by write, so a file is watched through
 * its folder. Returns a function that stops watching.
 */
export function watchPaths(paths: string[], work: () => Promise<void>, debounceMs = 100): () => void {
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  const trigger = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await work();
    } finally {
      running = false;
      if (again) {
        again = false;
        trigger();
      }
    }
  };
  const folders = new Map<string, Set<string>>();
  for (const path of paths.map((p) => resolve(p))) {
    if (existsSync(path) && statSync(path).isDirectory()) {
      watchers.push(watch(path, { recursive: true }, trigger));
      continue;
    }
    const folder = dirname(path);
    if (!folders.has(folder)) folders.set(folder, new Set());
    folders.get(folder)?.add(basename(path));
  }
  for (const [folder, names] of folders) {
    if (!existsSync(folder)) continue;
    watchers.push(
      watch(folder, (_event, name) => {
        if (name === null || names.has(name.toString())) trigger();
      }),
    );
  }
  return () => {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
