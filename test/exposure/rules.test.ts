// Pure pieces of exposure scanning: provider fingerprints, severity order, scope, the limiter, the registry.
import t from 'tap';
import { providerFor, TAKEOVER_FINGERPRINTS } from '../../src/services/exposure/fingerprints.js';
import {
  atLeast,
  EXPOSURE_CATEGORIES,
  findingFingerprint,
  severityRank,
  withinDomain,
} from '../../src/domain/exposure.js';
import { createLimit } from '../../src/services/exposure/types.js';
import { EXPOSURE_CHECKS } from '../../src/services/exposure/checks/index.js';
import { DEFAULT_WORDLIST } from '../../src/services/exposure/wordlist.js';

t.test('takeover fingerprints', async (t) => {
  const cases: [string, string | undefined][] = [
    ['acme.github.io', 'GitHub Pages'],
    ['acme.github.io.', 'GitHub Pages'],
    ['ACME.HEROKUAPP.COM', 'Heroku'],
    ['bucket.s3.amazonaws.com', 'Amazon S3'],
    ['bucket.s3-website-eu-west-1.amazonaws.com', 'Amazon S3'],
    ['bucket.s3.eu-central-1.amazonaws.com', 'Amazon S3'],
    ['my-lb-123.eu-west-1.elb.amazonaws.com', undefined],
    ['app.azurewebsites.net', 'Microsoft Azure'],
    ['shop.myshopify.com', 'Shopify'],
    ['site.netlify.app', 'Netlify'],
    ['x.vercel.app', 'Vercel'],
    ['help.zendesk.com', 'Zendesk'],
    ['global.fastly.net', 'Fastly'],
    ['notgithub.io', undefined],
    ['example.com', undefined],
  ];
  for (const [target, provider] of cases) t.equal(providerFor(target)?.provider, provider, target);
  for (const p of [
    'GitHub Pages',
    'Heroku',
    'Amazon S3',
    'Microsoft Azure',
    'Fastly',
    'Shopify',
    'Netlify',
    'Vercel',
    'Zendesk',
  ]) {
    t.ok(
      TAKEOVER_FINGERPRINTS.some((f) => f.provider === p && f.remediation.length > 20),
      `${p} listed with a remediation`,
    );
  }
});

t.test('severity order and scope', async (t) => {
  t.ok(severityRank('critical') < severityRank('high'));
  t.ok(atLeast('high', 'medium'));
  t.notOk(atLeast('low', 'medium'));
  t.ok(withinDomain('a.b.example.com', 'example.com'));
  t.ok(withinDomain('example.com.', 'example.com'));
  t.notOk(withinDomain('badexample.com', 'example.com'));
  t.equal(
    findingFingerprint({ category: 'open_port', host: 'db.example.com', key: '10.0.0.1:5432' }),
    'open_port|db.example.com|10.0.0.1:5432',
  );
  t.same(Object.keys(EXPOSURE_CHECKS).sort(), [...EXPOSURE_CATEGORIES].sort(), 'one check per category');
  t.ok(DEFAULT_WORDLIST.length >= 50 && DEFAULT_WORDLIST.length <= 100, 'bounded wordlist');
  t.equal(new Set(DEFAULT_WORDLIST).size, DEFAULT_WORDLIST.length, 'no duplicates');
});

t.test('limiter bounds work in flight', async (t) => {
  const limit = createLimit(3);
  let active = 0;
  let peak = 0;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      limit(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setImmediate(r));
        active--;
        return i;
      }),
    ),
  );
  t.equal(peak, 3);
  t.same(
    results,
    Array.from({ length: 20 }, (_, i) => i),
  );
  await t.rejects(
    limit(async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  t.equal(await limit(async () => 'still works'), 'still works');
});
