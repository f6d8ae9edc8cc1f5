// Run one Python script in Pyodide on Node (the page's vendored runtime and our wheels, from
// dist/site), the repository mounted at its own path; the script's output goes to stdout.
//
//   node bench/pyodide_run.mjs script.py [args...]     (sys.argv = [script.py, args...])
//
// Node's V8 is the WebAssembly engine of Chromium: what a script costs here is what the same
// Python costs in a page's worker, without the page. Used by bench/bench_runtime_floor.py.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pyodideDir = path.join(repo, "dist", "site", "pyodide") + path.sep;
if (!existsSync(path.join(pyodideDir, "pyodide.mjs"))) {
  console.error(`no Pyodide in ${pyodideDir}; run: python build/build_site.py`);
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir, packageBaseUrl: pyodideDir,
                                    lockFileURL: path.join(pyodideDir, "pyodide-lock.json") });
pyodide.setStdout({ batched: (line) => console.log(line) });
await pyodide.loadPackage(["subwordlab", "subwordlab_web"], { messageCallback: () => {} });
pyodide.FS.mkdirTree(repo);
pyodide.mountNodeFS(repo, repo);
const script = path.resolve(process.argv[2]);
pyodide.globals.set("ARGV", pyodide.toPy([script, ...process.argv.slice(3)]));
pyodide.runPython(`import sys, os; sys.argv = list(ARGV); sys.dont_write_bytecode = True; os.chdir(${JSON.stringify(repo)})`);
await pyodide.runPythonAsync(readFileSync(script, "utf-8"));
