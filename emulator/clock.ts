// The emulator's notion of now. Tests move it forward through the control API instead of sleeping.
// A time a Date cannot hold is refused here too, so no caller can leave the clock at NaN.
const DATE_LIMIT_MS = 8.64e15;
const holdable = (ms: number) => Number.isFinite(ms) && Math.abs(ms) <= DATE_LIMIT_MS;

export class Clock {
  private offsetMs = 0;
  /** How far the emulator's clock is from the real one (kept by `--state`). */
  get offset(): number {
    return this.offsetMs;
  }
  now(): number {
    return Date.now() + this.offsetMs;
  }
  iso(): string {
    return new Date(this.now()).toISOString();
  }
  advance(ms: number): void {
    if (!holdable(this.now() + ms)) throw new RangeError(`the clock cannot advance by ${ms} ms: a date cannot hold the result`);
    this.offsetMs += ms;
  }
  set(epochMs: number): void {
    if (!holdable(epochMs)) throw new RangeError(`the clock cannot be set to ${epochMs}: not a date`);
    this.offsetMs = epochMs - Date.now();
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
