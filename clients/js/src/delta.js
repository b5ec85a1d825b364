// View deltas (SPEC.md §6.2): apply(view, ops) -> new view, mirroring
// protocol/echoridge_protocol/delta.py.
//
//   ["set", path, value]    set a map key (added if absent) or an existing list index;
//                           the path [] replaces the whole view
//   ["del", path]           delete an existing map key
//   ["push", path, items]   append the list items to the list at path ([]: the view itself)
//   ["trim", path, length]  truncate the list at path to its first length items
//
// A path is a list of steps: a string selects a map key, an integer a list index
// (0 <= index < length; a boolean is not an index). Ops apply in order. apply() never mutates
// its arguments: it copies each map and list on the way to a change (once per call) and shares
// everything else. A malformed op, or one that does not apply, throws DeltaError
// (code protocol/bad_delta) and the caller's view is left as it was.

export class DeltaError extends Error {
  constructor(message) {
    super(message);
    this.name = "DeltaError";
    this.code = "protocol/bad_delta";
  }
}

const OPS = new Set(["set", "del", "push", "trim"]);

function isMap(x) {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

function isIndex(x) {
  return typeof x === "number" && Number.isInteger(x);
}

function hasKey(map, key) {
  return Object.prototype.hasOwnProperty.call(map, key);
}

// Sets an own, enumerable property even for keys such as "__proto__".
function setKey(map, key, value) {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

function copyMap(map) {
  const out = {};
  for (const k of Object.keys(map)) setKey(out, k, map[k]);
  return out;
}

export function apply(view, ops) {
  if (!Array.isArray(ops)) throw new DeltaError("a delta is a list of ops");
  const owned = new Set(); // maps and lists made by this call, so safe to change
  ops.forEach((op, n) => {
    try {
      view = applyOp(view, op, owned);
    } catch (err) {
      if (err instanceof DeltaError) throw new DeltaError(`op ${n} ${show(op)}: ${err.message}`);
      throw err;
    }
  });
  return view;
}

function applyOp(root, op, owned) {
  if (!Array.isArray(op) || op.length === 0) throw new DeltaError("an op is a non-empty list");
  const name = op[0];
  if (typeof name !== "string" || !OPS.has(name)) throw new DeltaError(`unknown op ${JSON.stringify(name)}`);
  if (op.length !== (name === "del" ? 2 : 3)) {
    throw new DeltaError(`${name} takes ${name === "del" ? 1 : 2} arguments`);
  }
  const path = op[1];
  if (!Array.isArray(path)) throw new DeltaError("a path is a list");
  const arg = name === "del" ? undefined : op[2];
  if (name === "push" && !Array.isArray(arg)) throw new DeltaError("push takes a list of items");
  if (name === "trim" && (!isIndex(arg) || arg < 0)) throw new DeltaError("trim takes a length >= 0");

  if (path.length === 0) {
    if (name === "set") return arg;
    if (name === "del") throw new DeltaError("cannot delete the whole view");
    return listOp(root, name, arg, owned);
  }
  root = own(root, owned, 0);
  let node = root;
  for (let depth = 0; depth < path.length - 1; depth++) {
    const step = path[depth];
    const child = own(get(node, step, depth), owned, depth + 1);
    put(node, step, child);
    node = child;
  }
  const last = path[path.length - 1];
  const depth = path.length - 1;
  if (name === "set") {
    if (isMap(node)) {
      if (typeof last !== "string") throw new DeltaError(`step ${depth}: a map key is a string`);
      setKey(node, last, arg);
    } else {
      get(node, last, depth); // checks that the index exists
      node[last] = arg;
    }
  } else if (name === "del") {
    if (!isMap(node)) throw new DeltaError(`step ${depth}: del removes a map key, not a list item`);
    get(node, last, depth);
    delete node[last];
  } else {
    put(node, last, listOp(get(node, last, depth), name, arg, owned));
  }
  return root;
}

function put(node, step, value) {
  if (Array.isArray(node)) node[step] = value;
  else setKey(node, step, value);
}

function get(node, step, depth) {
  if (isMap(node)) {
    if (typeof step !== "string") throw new DeltaError(`step ${depth}: a map key is a string, not ${JSON.stringify(step)}`);
    if (!hasKey(node, step)) throw new DeltaError(`step ${depth}: no key ${JSON.stringify(step)}`);
    return node[step];
  }
  if (Array.isArray(node)) {
    if (!isIndex(step)) throw new DeltaError(`step ${depth}: a list index is an int, not ${JSON.stringify(step)}`);
    if (step < 0 || step >= node.length) {
      throw new DeltaError(`step ${depth}: index ${step} outside a list of ${node.length}`);
    }
    return node[step];
  }
  throw new DeltaError(`step ${depth}: ${JSON.stringify(step)} on a ${node === null ? "nil" : typeof node}, not a map or list`);
}

function own(node, owned, depth) {
  if (owned.has(node)) return node;
  let copy;
  if (Array.isArray(node)) copy = node.slice();
  else if (isMap(node)) copy = copyMap(node);
  else throw new DeltaError(`step ${depth}: a ${node === null ? "nil" : typeof node} has no children`);
  owned.add(copy);
  return copy;
}

function listOp(target, name, arg, owned) {
  if (!Array.isArray(target)) throw new DeltaError(`${name} needs a list`);
  let result;
  if (name === "push") {
    result = target.concat(arg);
  } else {
    if (arg > target.length) throw new DeltaError(`cannot trim a list of ${target.length} to ${arg}`);
    result = target.slice(0, arg);
  }
  owned.add(result);
  return result;
}

function show(op) {
  let text;
  try {
    text = JSON.stringify(Array.isArray(op) ? op.slice(0, 2) : op);
  } catch {
    text = String(op);
  }
  return text && text.length > 120 ? text.slice(0, 117) + "..." : text;
}
