// Is anybody at the desk? Each visible inbox tab says so every few seconds
// (POST /push/presence); a tab that stops saying so (closed, hidden, the
// laptop asleep) stops counting after PRESENCE_TTL_MS. With no visible tab,
// a held request is pushed at once instead of after push.delay_ms.
export const PRESENCE_TTL_MS = 35_000;
const MAX_TABS = 200;

export class Presence {
  private readonly tabs = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A tab reports itself visible (true) or hidden (false). */
  report(tab: string, visible: boolean): void {
    if (!visible) {
      this.tabs.delete(tab);
      return;
    }
    if (!this.tabs.has(tab) && this.tabs.size >= MAX_TABS) this.tabs.delete(this.tabs.keys().next().value!);
    this.tabs.set(tab, this.now() + PRESENCE_TTL_MS);
  }

  get visible(): boolean {
    const t = this.now();
    for (const [k, until] of this.tabs) {
      if (until > t) return true;
      this.tabs.delete(k);
    }
    return false;
  }
}
