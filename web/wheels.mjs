// Our two wheels, downloaded and installed the same way by the page (bootstrap.js) and by the
// compute worker (compute_worker.js):
//   1. `fetchWheels` starts the downloads as soon as the lock file is known, while the runtime
//      boots; each wheel is checked against the SHA-256 the build wrote into the lock file
//      (the browser refuses the response if they differ);
//   2. `installWheels` unpacks them straight into site-packages (pure Python: nothing else to
//      install): ~80 ms, where pyodide.loadPackage took ~200 ms for the same two files.
// The wheels carry their bytecode (build/wheel_bytecode.mjs), so importing compiles nothing.

// by their names in the lock file, in the order they install (the core first)
const WHEELS = ["subwordlab", "subwordlab-web"];

export async function fetchOk(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  return response;
}

async function fetchWheel(lock, lockURL, key) {
  const entry = lock.packages[key];
  if (!entry) throw new Error(`the lock file names no package ${key}; rebuild the site (python build/build_site.py)`);
  const sha256 = btoa(String.fromCharCode(...entry.sha256.match(/../g).map((h) => parseInt(h, 16))));
  const url = new URL(entry.file_name, lockURL).href;
  try {
    const response = await fetchOk(url, { integrity: `sha256-${sha256}` });
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new Error(`could not download ${entry.name} (${entry.file_name}): ${error.message}`);
  }
}

// The wheels' bytes (a promise), given the lock file (a promise of its JSON) and its address.
export function fetchWheels(lock, lockURL) {
  const wheels = lock.then((l) => Promise.all(WHEELS.map((key) => fetchWheel(l, lockURL, key))));
  wheels.catch(() => {}); // a failed download is reported where the caller awaits it
  return wheels;
}

// Unpack the wheels into the runtime's site-packages, then let the importer see them: a fresh
// finder for site-packages (its old one may have listed the folder before them). Not
// importlib.invalidate_caches(), which since Python 3.12 also imports importlib.metadata
// (email, zipfile, csv...): ~50 ms of a start.
export function installWheels(pyodide, buffers) {
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  for (const buffer of buffers) pyodide.unpackArchive(buffer, "wheel", { extractDir: sitePackages });
  pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
}
