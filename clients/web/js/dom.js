// Tiny DOM helpers: elements are built with text nodes, never from HTML strings.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children, isSvg) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.setAttribute("class", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (!isSvg && k in el && typeof v !== "string" && k !== "list") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children, false);
}

export function s(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children, true);
}

// Replaces the children of `el`, keeping the keyboard focus on the element with the same
// data-key (if it still exists) so that re-rendering never throws a keyboard user out.
export function replace(el, ...children) {
  const active = document.activeElement;
  const key = active && el.contains(active) && active.dataset ? active.dataset.key : null;
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  if (key) {
    const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}

export function announce(text) {
  const live = document.getElementById("announcer");
  if (live) live.textContent = text;
}

export function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = h("textarea", { readonly: true }, text);
  document.body.append(area);
  area.select();
  try {
    document.execCommand("copy");
  } finally {
    area.remove();
  }
  return Promise.resolve();
}
