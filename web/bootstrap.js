// Subword Lab bootstrap: start Pyodide from the vendored copy, install our two wheels
// (listed in the served lock file), and hand over to Python's subwordlab_web.start().
// Each stage is shown on the page; tests wait for body[data-ready], and a failure shows
// the stage name and the error and sets body[data-boot-error].
//
// Speed: the wheels download while the runtime boots, and are unpacked straight into
// site-packages (wheels.mjs, shared with the compute worker).

import { fetchOk, fetchWheels, installWheels } from "./wheels.mjs";

const times = (window.__bootTimes = { scriptStart: performance.now() });
const $ = (id) => document.getElementById(id);
let stage = "loading the page";

// The DOM port's bulk builder (BrowserPort.build in subwordlab_web/dom.py): one call from
// Python makes a whole table or chart from plain data, [tag, {attribute: value}, ...children]
// with strings as text nodes and "svg:" tags in the SVG namespace, sent as JSON text (one
// string crosses: 3x faster than converting thousands of Python lists and dicts one by one).
// It only uses createElement(NS), setAttribute and createTextNode, so data can never become markup.
const SVG_NS = "http://www.w3.org/2000/svg";
function build(spec) {
  if (typeof spec === "string") return document.createTextNode(spec);
  const [tag, attrs, ...children] = spec;
  const el = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  if (attrs) for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  for (const child of children) el.appendChild(build(child));
  return el;
}
window.subwordlabBuild = (json) => build(JSON.parse(json));
window.subwordlabBuildInto = (parent, json) => parent.replaceChildren(...JSON.parse(json).map(build));
window.subwordlabBuildMore = (parent, json) => parent.append(...JSON.parse(json).map(build));

// The compute session's worker (compute_worker.js; subwordlab_web/dom.py's ComputeWorker
// drives it): `worker.booted` settles once its own Pyodide and wheels are ready. The page
// starts one when a corpus too big to train on the page appears (dom.py's warm_compute), so it
// warms while the learner looks, or when a task needs it (a pattern of the user's own is
// checked there first: subwordlab_web/pattern_guard.py); tiny corpora (the textbook examples)
// never need one. It is the page's only worker.
window.subwordlabStartWorker = () => {
  const worker = new Worker("compute_worker.js", { type: "module" });
  worker.booted = new Promise((resolve, reject) => {
    const listen = (event) => {
      if (event.data && "boot" in event.data) resolve(event.data.boot);
      else if (event.data && "bootError" in event.data) reject(new Error(event.data.bootError));
      else return;
      worker.removeEventListener("message", listen);
    };
    worker.addEventListener("message", listen);
    worker.addEventListener("error", (event) => reject(new Error(event.message || "the worker failed to load")), { once: true });
  });
  worker.booted.catch(() => {}); // reported when a task needs the worker
  return worker;
};

function setStage(name, text) {
  stage = name;
  $("boot-stage").textContent = text;
}

function fail(error) {
  const message = error && error.message ? error.message : String(error);
  console.error(`Subword Lab failed while ${stage}:`, error);
  $("boot-error-stage").textContent = stage;
  $("boot-error-message").textContent = message;
  $("boot-error").hidden = false;
  document.querySelector(".boot-card").hidden = true;
  document.body.dataset.bootError = stage;
}

async function boot() {
  const pyodideURL = new URL("./pyodide/", document.baseURI).href;
  const lockURL = pyodideURL + "pyodide-lock.json";

  setStage("loading the Python runtime", "Loading the Python runtime…");
  // 1. every download at once: the lock file, then our wheels, while the runtime boots
  const lock = fetchOk(lockURL).then((response) => response.json());
  const wheels = fetchWheels(lock, lockURL); // (a failed download is reported at its own stage, below)
  const { loadPyodide } = await import(pyodideURL + "pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL: pyodideURL,
    lockFileContents: lock,
    // JavaScript null reaches Python as None (the DOM port tests `is None`: a missing
    // element, `closest` finding nothing, an empty sessionStorage key); without this it is
    // `jsnull`, which is not None, and e.g. every page-wide shortcut was ignored
    convertNullToNone: true,
  });
  times.pyodideLoaded = performance.now();

  // 2. unpack the wheels into site-packages (pure Python: nothing else to install)
  setStage("installing Subword Lab", "Installing Subword Lab…");
  installWheels(pyodide, await wheels);
  times.packagesLoaded = performance.now();

  setStage("starting the interface", "Starting the interface…");
  const web = pyodide.pyimport("subwordlab_web");
  try {
    web.start();
  } finally {
    web.destroy();
  }
  times.ready = performance.now();

  $("boot").hidden = true;
  $("app").hidden = false;
  document.body.dataset.ready = "1";
}

boot().catch(fail);
