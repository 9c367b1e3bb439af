// The web inbox's accessibility basics, checked in the browser in light and
// dark mode: every control has an accessible name, text meets WCAG AA
// contrast (4.5:1) against what it is drawn on, the keyboard reaches the
// answers in a sensible order with a visible focus ring, and touch targets
// are at least 44 px.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { decisionCase, fire, launch, signedIn, skipBrowser, stack, withSession, type Stack } from './harness.ts';

const AGENT = 'claude-code';

/** In the page: controls without an accessible name, and text below 4.5:1 (both as descriptions). */
async function audit(page: Page): Promise<{ unnamed: string[]; lowContrast: string[] }> {
  return page.evaluate(() => {
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} ` +
      `"${(el.textContent ?? '').trim().slice(0, 30)}"`;
    const unnamed: string[] = [];
    for (const el of document.querySelectorAll('input, textarea, select, button, a[href], summary')) {
      const h = el as HTMLInputElement;
      const named =
        (h.labels && h.labels.length > 0) ||
        el.getAttribute('aria-label') ||
        el.getAttribute('aria-labelledby') ||
        (el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA' && el.tagName !== 'SELECT' && (el.textContent ?? '').trim());
      if (!named) unnamed.push(describe(el));
    }
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? ['0', '0', '0', '1']).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length < 4 || c[3] > 0.5) return c;
      }
      return rgb(getComputedStyle(document.body).backgroundColor);
    };
    const lowContrast: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || !(n.textContent ?? '').trim()) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.display === 'none' || el.closest('[aria-hidden="true"], .sr-only, noscript')) continue;
      const fg = rgb(st.color);
      const l1 = lum(fg);
      const l2 = lum(background(el));
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      if (ratio < 4.5) lowContrast.push(`${describe(el)} ${ratio.toFixed(2)}`);
    }
    return { unnamed, lowContrast: [...new Set(lowContrast)] };
  });
}

describe.skipIf(!!skipBrowser)('web inbox: accessibility', () => {
  let browser: Browser;
  let s: Stack;
  const held: Promise<unknown>[] = [];

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ attentionTimeoutMs: 60_000 });
    held.push(fire(s, AGENT, withSession(decisionCase(AGENT, 'permission allow').input, 'a11y-perm')));
    held.push(fire(s, AGENT, withSession(decisionCase(AGENT, 'question form answered with values (choice ids, multi, Other text)').input, 'a11y-form')));
    held.push(
      fire(s, AGENT, withSession(decisionCase(AGENT, 'elicitation accepted with values (content = values verbatim)').input, 'a11y-elicit'), 'Elicitation'),
    );
    for (const h of held) h.catch(() => {});
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`${colorScheme}: every control named, every text at 4.5:1 or more (inbox and a session)`, async () => {
      const { context, page } = await signedIn(browser, s, { colorScheme });
      try {
        await page.locator('main [data-card]').nth(2).waitFor();
        // the audit itself catches what it looks for
        await page.evaluate(() => {
          const probe = document.createElement('div');
          probe.id = 'probe';
          // (styles set through the CSSOM: the page's CSP refuses style attributes in markup)
          const faint = document.createElement('p');
          faint.textContent = 'faint';
          faint.style.color = '#bbb';
          faint.style.background = '#fff';
          probe.append(faint, document.createElement('input'));
          document.body.append(probe);
        });
        const probed = await audit(page);
        expect(probed.unnamed).toEqual(['input ""']);
        expect(
          probed.lowContrast.some((x) => x.startsWith('p "faint"')),
          JSON.stringify(probed),
        ).toBe(true);
        await page.evaluate(() => document.getElementById('probe')!.remove());
        const home = await audit(page);
        expect(home.unnamed).toEqual([]);
        expect(home.lowContrast).toEqual([]);
        await page.goto(`${s.url}/#/s/a11y-perm`);
        await page.locator('.timeline [data-type="attention.requested"]').waitFor();
        const session = await audit(page);
        expect(session.unnamed).toEqual([]);
        expect(session.lowContrast).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it('the keyboard reaches the answers in order with a visible focus ring; touch targets are 44 px', async () => {
    const { context, page } = await signedIn(browser, s);
    try {
      await page.goto(`${s.url}/#/s/a11y-perm`);
      const allow = page.locator('main [data-card] [data-option="allow"]');
      await allow.waitFor();
      let reached = false;
      const order: string[] = [];
      for (let i = 0; i < 40 && !reached; i++) {
        await page.keyboard.press('Tab');
        const f = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const st = getComputedStyle(el);
          return {
            text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 24),
            option: el.getAttribute('data-option'),
            outline: st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) >= 2,
          };
        });
        order.push(f.text);
        if (f.option === 'allow') {
          reached = true;
          expect(f.outline).toBe(true);
        }
      }
      expect(reached, `tab order: ${order.join(' | ')}`).toBe(true);
      // the skip link comes first, the answers before the timeline
      expect(order[0]).toBe('Skip to content');
      for (const sel of ['main [data-card] button', '.session-row', 'header button']) {
        for (const box of await page.locator(sel).evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ w: r.width, h: r.height })))) {
          expect(Math.min(box.w, box.h), sel).toBeGreaterThanOrEqual(44);
        }
      }
    } finally {
      await context.close();
    }
  });
});
