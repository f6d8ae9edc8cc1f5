// Subword Lab bootstrap: start Pyodide from the vendored copy, install our two wheels
// (listed in the served lock file), and hand over to Python's subwordlab_web.start().
// Each stage is shown on the page; tests wait for body[data-ready], and a failure shows
// the stage name and the error and sets body[data-boot-error].

const times = (window.__bootTimes = { scriptStart: performance.now() });
const $ = (id) => document.getElementById(id);
let stage = "loading the page";

// The DOM port's bulk builder (BrowserPort.build in subwordlab_web/dom.py): one call from
// Python makes a whole table or chart from plain data, [tag, {attribute: value}, ...children]
// with strings as text nodes and "svg:" tags in the SVG namespace. It only uses
// createElement(NS), setAttribute and createTextNode, so data can never become markup.
const SVG_NS = "http://www.w3.org/2000/svg";
function build(spec) {
  if (typeof spec === "string") return document.createTextNode(spec);
  const [tag, attrs, ...children] = spec;
  const el = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  if (attrs) for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  for (const child of children) el.appendChild(build(child));
  return el;
}
window.subwordlabBuild = build;
window.subwordlabBuildInto = (parent, specs) => parent.replaceChildren(...specs.map(build));

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

  setStage("loading the Python runtime", "Loading the Python runtime…");
  const { loadPyodide } = await import(pyodideURL + "pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL: pyodideURL,
    lockFileURL: pyodideURL + "pyodide-lock.json",
    // JavaScript null reaches Python as None (the DOM port tests `is None`: a missing
    // element, `closest` finding nothing, an empty sessionStorage key); without this it is
    // `jsnull`, which is not None, and e.g. every page-wide shortcut was ignored
    convertNullToNone: true,
  });
  times.pyodideLoaded = performance.now();

  setStage("installing Subword Lab", "Installing Subword Lab…");
  const loadErrors = [];
  await pyodide.loadPackage(["subwordlab", "subwordlab_web"], {
    messageCallback: () => {},
    errorCallback: (msg) => loadErrors.push(msg),
  });
  // loadPackage never throws: it reports through errorCallback, so fail here ourselves.
  if (loadErrors.length) throw new Error(loadErrors.join("\n"));
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
