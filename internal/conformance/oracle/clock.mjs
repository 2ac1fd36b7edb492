// clock.mjs: pins Date for the drivers. The release's code reads the clock for the ids and
// timestamps of synthetic entries and for ages, so OpenClaw and clawdoctor must see the same
// instant: each request may name it (`now`, ms since the epoch). Import it before the
// release's chunks are loaded, so they see the pinned Date.
let fixedNow = Date.UTC(2026, 4, 5, 12, 0, 0);
const RealDate = Date;
class FixedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(fixedNow);
    else super(...args);
  }
  static now() {
    return fixedNow;
  }
}
globalThis.Date = FixedDate;

// setNow pins the clock to ms; anything but a number leaves it where it is.
export function setNow(ms) {
  if (typeof ms === "number") fixedNow = ms;
}
