// What the browser keeps: seat tokens per table (localStorage, so a reload or a new tab can
// take the seat again), the creator's owner token of each table created here (localStorage), the seat this tab plays at each table (sessionStorage), the last view of
// each session (sessionStorage, so a reload resumes from its version), the player's name, and
// the player's identity on this server (SPEC.md §4.9: its secret, id and handle; the secret
// signs every lobby connection in, and is this device's own).

const SEATS = "echoridge.seats";
const TAB = "echoridge.tab";
const NAME = "echoridge.name";
const OWNERS = "echoridge.owners";
const IDENTITY = "echoridge.identity";

function read(storage, key, fallback) {
  try {
    const text = storage.getItem(key);
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

function write(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch {
    // full or disabled storage: the page works on without it
  }
}

export function seats() {
  return read(localStorage, SEATS, {});
}

export function seatAt(table) {
  return seats()[table] || null;
}

export function keepSeat(table, record) {
  const all = seats();
  all[table] = { ...record, kept: Date.now() };
  write(localStorage, SEATS, all);
  claimInTab(table, all[table]);
}

export function forgetSeat(table) {
  const all = seats();
  delete all[table];
  write(localStorage, SEATS, all);
  const tab = read(sessionStorage, TAB, {});
  delete tab[table];
  write(sessionStorage, TAB, tab);
  forgetSnapshots(table);
}

// The seat this tab plays at `table` (a browser may hold several seats of one table in
// several tabs; localStorage remembers the latest).
export function claimInTab(table, record) {
  const tab = read(sessionStorage, TAB, {});
  tab[table] = record;
  write(sessionStorage, TAB, tab);
}

export function claimedInTab(table) {
  const record = read(sessionStorage, TAB, {})[table];
  return record && typeof record === "object" && record.token ? record : null;
}

// The owner token (created.owner) of a table this browser created: it removes players and
// closes the table before the start (SPEC.md §4.4).
export function ownerOf(table) {
  const owner = read(localStorage, OWNERS, {})[table];
  return typeof owner === "string" && owner ? owner : null;
}

export function keepOwner(table, owner) {
  if (!owner) return;
  const all = read(localStorage, OWNERS, {});
  all[table] = owner;
  write(localStorage, OWNERS, all);
}

export function forgetOwner(table) {
  const all = read(localStorage, OWNERS, {});
  delete all[table];
  write(localStorage, OWNERS, all);
}

export function name() {
  return read(localStorage, NAME, "");
}

export function keepName(value) {
  write(localStorage, NAME, value);
}

// This browser's identity: { secret, id, handle }, or null (a guest).
export function identity() {
  const value = read(localStorage, IDENTITY, null);
  return value && typeof value === "object" && typeof value.secret === "string" && value.secret
    ? { secret: value.secret, id: String(value.id || ""), handle: String(value.handle || "") }
    : null;
}

export function keepIdentity({ secret, id, handle }) {
  write(localStorage, IDENTITY, { secret, id, handle });
}

// The handle only (renamed here or on another device); the secret stays.
export function keepHandle(handle) {
  const known = identity();
  if (known && handle && known.handle !== handle) keepIdentity({ ...known, handle });
}

// Forgets the identity, if `secret` (when given) is still the one kept: another tab may have
// kept a new one meanwhile.
export function forgetIdentity(secret = null) {
  const known = identity();
  if (!known || (secret && known.secret !== secret)) return;
  try {
    localStorage.removeItem(IDENTITY);
  } catch {
    // disabled storage: nothing was kept
  }
}

function snapKey(table, who) {
  return `echoridge.snap.${table}.${who}`;
}

export function snapshot(table, who) {
  return read(sessionStorage, snapKey(table, who), null);
}

export function keepSnapshot(table, who, value) {
  write(sessionStorage, snapKey(table, who), value);
}

export function forgetSnapshots(table) {
  for (let i = sessionStorage.length - 1; i >= 0; i--) {
    const key = sessionStorage.key(i);
    if (key && key.startsWith(`echoridge.snap.${table}.`)) sessionStorage.removeItem(key);
  }
}
