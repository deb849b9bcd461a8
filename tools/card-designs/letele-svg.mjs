// Write the cards of @letele/playing-cards (React components: SVG inside JS) as plain
// SVG files named by our card ids (AS.svg, 10H.svg, QC.svg, ...).
// Usage: node letele-svg.mjs path/to/dist/index.esm.js OUT_DIR
// The module is evaluated with a stand-in React whose createElement returns SVG text.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const [, , modulePath, outDir] = process.argv;
if (!modulePath || !outDir) {
  console.error("usage: node letele-svg.mjs INDEX_ESM_JS OUT_DIR");
  process.exit(2);
}

const KEEP_CAMEL = new Set(["viewBox", "preserveAspectRatio", "patternUnits", "patternTransform",
  "gradientUnits", "gradientTransform", "clipPathUnits", "maskUnits", "markerWidth",
  "markerHeight", "refX", "refY", "spreadMethod", "startOffset", "textLength"]);
const RENAME = { className: "class", xlinkHref: "xlink:href", xmlnsXlink: "xmlns:xlink" };
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

function attrName(k) {
  if (RENAME[k]) return RENAME[k];
  if (KEEP_CAMEL.has(k)) return k;
  return k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

class Markup {
  constructor(text) { this.text = text; }
}

function createElement(type, props, ...children) {
  const attrs = Object.entries(props || {})
    .filter(([k, v]) => v !== undefined && v !== null && !k.startsWith("aria-"))
    .map(([k, v]) => ` ${attrName(k)}="${esc(v)}"`).join("");
  const inner = children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Markup ? c.text : esc(c))).join("");
  return new Markup(`<${type}${attrs}>${inner}</${type}>`);
}

let src = readFileSync(modulePath, "utf8");
src = src.replace(/^import .*$/gm, "");
const exp = src.match(/export\s*\{([^}]*)\};?\s*$/);
if (!exp) {
  console.error("no export list found in " + modulePath);
  process.exit(1);
}
src = src.slice(0, exp.index);
const pairs = exp[1].split(",").map((s) => s.trim()).filter(Boolean)
  .map((s) => s.split(/\s+as\s+/));
const body = `${src}\nreturn {${pairs.map(([local, name]) => `${JSON.stringify(name)}: ${local}`).join(", ")}};`;
const mod = new Function("React", "_extends", body)({ createElement }, Object.assign);

const RANK = { a: "A", j: "J", q: "Q", k: "K" };
mkdirSync(outDir, { recursive: true });
let n = 0;
for (const [name, component] of Object.entries(mod)) {
  const m = name.match(/^([CDHS])(10|[2-9]|[ajqk])$/i);
  if (!m) continue; // backs (B1, B2) and jokers (J1, J2)
  const suit = m[1].toUpperCase();
  const rank = RANK[m[2].toLowerCase()] || m[2];
  const svg = component({}).text;
  writeFileSync(join(outDir, `${rank}${suit}.svg`),
    `<?xml version="1.0" encoding="UTF-8"?>\n${svg}\n`);
  n += 1;
}
if (n !== 52) {
  console.error(`expected 52 cards, wrote ${n}`);
  process.exit(1);
}
