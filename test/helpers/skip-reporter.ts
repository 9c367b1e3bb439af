// A vitest reporter (vitest.config.ts) that ends a run with one line when a
// test group skipped because a program it needs is missing (Debian's
// chromium, nats-server: test/helpers/optional-tools.ts): how many tests,
// which groups, and the command that installs what they need. Without it a
// contributor on a fresh machine sees green and believes everything ran.
import type { Reporter, TestModule } from 'vitest/node';
import { OPTIONAL_TOOLS, skipReason } from './optional-tools.ts';

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const groups: string[] = [];
    const apt: string[] = [];
    let total = 0;
    for (const t of OPTIONAL_TOOLS) {
      const why = skipReason(t);
      if (!why) continue;
      let n = 0;
      for (const m of modules) {
        if (!m.relativeModuleId.replace(/\\/g, '/').startsWith(t.dir)) continue;
        for (const test of m.children.allTests()) if (test.result().state === 'skipped') n++;
      }
      if (!n) continue;
      total += n;
      groups.push(`${t.dir} ${n} (${t.what}: ${why})`);
      apt.push(t.apt);
    }
    if (!total) return;
    process.stdout.write(
      `\nSKIPPED ${total} test${total === 1 ? '' : 's'}, a program missing: ${groups.join(', ')}; to run them: sudo apt-get install ${apt.join(' ')}\n`,
    );
  }
}
