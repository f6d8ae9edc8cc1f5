// Run build/wheel_bytecode.py inside the page's own Pyodide on Node, so the bytecode it puts
// into our wheels is the one the page's Python imports (same magic number, same cache tag).
//
//   node build/wheel_bytecode.mjs PYODIDE_DIR WHEEL...
//
// build_site.py calls it on dist/site/wheels/*.whl before writing their hashes into the lock.
// Each wheel's folder is mounted at its own path, so the wheel is rewritten where it lies.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [pyodideDir, ...wheels] = process.argv.slice(2).map((p) => path.resolve(p));
if (!pyodideDir || !wheels.length) {
  console.error("usage: node build/wheel_bytecode.mjs PYODIDE_DIR WHEEL...");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep, packageBaseUrl: pyodideDir + path.sep });
pyodide.setStdout({ batched: (line) => console.log(line) });

// 1. the module, as a file of the in-memory file system
const here = path.dirname(fileURLToPath(import.meta.url));
pyodide.FS.mkdirTree("/build");
pyodide.FS.writeFile("/build/wheel_bytecode.py", readFileSync(path.join(here, "wheel_bytecode.py")));
// 2. each wheel's folder at its own path
for (const folder of new Set(wheels.map((w) => path.dirname(w)))) {
  pyodide.FS.mkdirTree(folder);
  pyodide.mountNodeFS(folder, folder);
}
// 3. rewrite the wheels
pyodide.globals.set("WHEELS", pyodide.toPy(wheels));
pyodide.runPython(`
import sys
from pathlib import Path
sys.dont_write_bytecode = True
sys.path.insert(0, "/build")
import wheel_bytecode
for wheel in WHEELS:
    print(f"[build] {Path(wheel).name}: {wheel_bytecode.add_bytecode(Path(wheel))} bytecode files for {sys.implementation.cache_tag}")
`);
