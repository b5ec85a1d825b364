// The text mode's sound cues (textmode.js): short tones made with Web Audio (an oscillator and a
// gain envelope, no sound files): "turn" when a move becomes the seat's to make, "success" and
// "failure" for the seat's own risk results, a refused or unknown command, and the end. They
// can be turned off (a checkbox, or the `sound` command); the choice is remembered in
// localStorage. Browsers let a page start audio only after a gesture: the context is made (or
// resumed) on the first key or click in the page, and until then a cue is only counted.

const KEY = "echoridge.sound";

// [frequency Hz, start s, length s] of each cue's notes.
const CUES = {
  turn: [[660, 0, 0.09], [880, 0.1, 0.12]],
  success: [[523, 0, 0.08], [659, 0.09, 0.08], [784, 0.18, 0.14]],
  failure: [[330, 0, 0.12], [220, 0.13, 0.2]],
};

export class SoundCues {
  constructor() {
    this.on = read() !== "off";
    this.context = null;
    this.played = []; // the cues played (or due while audio could not start yet), newest last
    this.onGesture = () => this.wake();
    document.addEventListener("keydown", this.onGesture, true);
    document.addEventListener("pointerdown", this.onGesture, true);
  }

  close() {
    document.removeEventListener("keydown", this.onGesture, true);
    document.removeEventListener("pointerdown", this.onGesture, true);
    if (this.context) this.context.close().catch(() => {});
    this.context = null;
  }

  set(on) {
    this.on = Boolean(on);
    try {
      localStorage.setItem(KEY, this.on ? "on" : "off");
    } catch {
      // disabled storage: the choice lasts as long as the page
    }
  }

  // Makes the audio context after a gesture (or resumes one the browser suspended).
  wake() {
    if (!this.on) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      if (!this.context) this.context = new Context();
      if (this.context.state === "suspended") this.context.resume().catch(() => {});
    } catch {
      this.context = null; // no audio here: the cues stay silent
    }
  }

  play(kind) {
    const notes = CUES[kind];
    if (!this.on || !notes) return;
    this.played.push(kind);
    if (this.played.length > 50) this.played.shift();
    const ctx = this.context;
    if (!ctx || ctx.state !== "running") return;
    const now = ctx.currentTime;
    for (const [frequency, start, length] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = kind === "failure" ? "triangle" : "sine";
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.2, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  }
}

function read() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}
