// The unit tier inside real Pyodide on Node: the built wheels, the modules of tests/unit
// marked `every_runtime` (what can differ between runtimes, and the UI's smoke test; see
// tests/unit/conftest.py), with the Hypothesis profile of $SUBWORDLAB_HYPOTHESIS (ci).
//
//   node tests/pyodide/run.mjs [extra pytest args...]
//
// Needs the built site (python build/build_site.py): the vendored runtime and served lock
// in dist/site/pyodide/, our wheels in dist/site/wheels/, and pure pytest/Hypothesis wheels
// in build/_cache/pywheels/. Nothing is fetched from the network (packageBaseUrl is local).
// The repository is mounted at its own path, so tests find their data files (corpora/,
// lessons/) exactly as on CPython. Exits with pytest's exit code.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodideDir = path.join(repo, "dist", "site", "pyodide") + path.sep;
const testWheels = path.join(repo, "build", "_cache", "pywheels");

function die(message) {
  console.error(`tests/pyodide: ${message}`);
  process.exit(2);
}

if (!existsSync(path.join(pyodideDir, "pyodide.mjs"))) die(`no Pyodide in ${pyodideDir}; run: python build/build_site.py`);
if (!existsSync(testWheels)) die(`no test wheels in ${testWheels}; run: python build/build_site.py`);

async function main() {
  const t0 = performance.now();
  const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({
    indexURL: pyodideDir,
    packageBaseUrl: pyodideDir, // never fall back to the CDN
    lockFileURL: path.join(pyodideDir, "pyodide-lock.json"),
  });
  // Raw writes, so pytest's progress dots stay on one line.
  const raw = (stream) => ({ write: (buf) => (stream.write(buf), buf.length) });
  pyodide.setStdout(raw(process.stdout));
  pyodide.setStderr(raw(process.stderr));

  // Our wheels, as the served lock file lists them (the same files the page unpacks).
  const errors = [];
  await pyodide.loadPackage(["subwordlab", "subwordlab_web"], {
    messageCallback: () => {},
    errorCallback: (msg) => errors.push(msg),
  });
  if (errors.length) die(`loadPackage failed:\n${errors.join("\n")}`);

  // pytest and friends: unpack the pure wheels straight into site-packages.
  const wheels = readdirSync(testWheels).filter((f) => f.endsWith(".whl"));
  if (!wheels.length) die(`no wheels in ${testWheels}`);
  for (const wheel of wheels) {
    pyodide.unpackArchive(new Uint8Array(readFileSync(path.join(testWheels, wheel))), "wheel");
  }
  // Prove the installs, and say which subwordlab is under test (the wheel, not the tree).
  const where = pyodide.runPython(
    "import pytest, hypothesis, subwordlab, subwordlab_web\n" +
      "f'subwordlab {subwordlab.__version__} from {subwordlab.__file__}; " +
      "pytest {pytest.__version__}, hypothesis {hypothesis.__version__}'",
  );

  pyodide.FS.mkdirTree(repo);
  pyodide.mountNodeFS(repo, repo);
  console.log(`tests/pyodide: Pyodide ${pyodide.version} ready in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${where}`);

  pyodide.globals.set("REPO", repo);
  pyodide.globals.set("EXTRA_ARGS", pyodide.toPy(process.argv.slice(2)));
  pyodide.globals.set("PROFILE", process.env.SUBWORDLAB_HYPOTHESIS || "ci");
  const code = pyodide.runPython(`
  import os, sys
  sys.dont_write_bytecode = True   # never write 3.14 .pyc files into the mounted repository
  os.chdir(REPO)                   # as on CPython (conftest turns off Hypothesis' database here)
  os.environ["SUBWORDLAB_HYPOTHESIS"] = PROFILE
  import pytest
  args = [
      "-q", "-p", "no:cacheprovider",
      "--rootdir", REPO,
      "-o", "pythonpath=",          # test the installed wheels, not the source tree
      "-m", "not cpython_only",
      os.path.join(REPO, "tests", "unit"),
      *EXTRA_ARGS,
  ]
  int(pytest.main(args))
  `);
  return code;
}

// subtle: an uncaught error would make Node print the whole minified Pyodide source line.
main().then(
  (code) => process.exit(code),
  (error) => die(error && error.stack ? error.stack.split("\n").slice(0, 12).join("\n") : String(error)),
);
