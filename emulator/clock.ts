// The emulator's notion of now. Tests move it forward through the control API instead of sleeping.
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
    this.offsetMs += ms;
  }
  set(epochMs: number): void {
    this.offsetMs = epochMs - Date.now();
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
