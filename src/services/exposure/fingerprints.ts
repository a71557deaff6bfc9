// Takeover-prone hosting services: a CNAME pointing at one of these suffixes whose target no longer
// exists (NXDOMAIN), or whose site answers with the provider's "no such site" page, can be claimed
// by anyone who creates that name at the provider. Keep entries small: suffixes and body markers.
// Sources: public takeover research lists (e.g. can-i-take-over-xyz); add a row to add a provider.
export interface TakeoverFingerprint {
  provider: string;
  /** CNAME target suffixes (lowercase, no trailing dot). */
  cnames: readonly string[];
  /** Targets whose suffix varies (regions): matched against the whole target. */
  patterns?: readonly RegExp[];
  /** Substrings of the provider's page for an unclaimed name; empty = NXDOMAIN evidence only. */
  markers: readonly string[];
  /** What to do about it, in one sentence. */
  remediation: string;
}

const claimOrRemove = (what: string) =>
  `Remove the CNAME record, or claim the name again at ${what} before someone else does.`;

export const TAKEOVER_FINGERPRINTS: readonly TakeoverFingerprint[] = [
  {
    provider: 'GitHub Pages',
    cnames: ['github.io'],
    markers: ["There isn't a GitHub Pages site here."],
    remediation: claimOrRemove('GitHub Pages (add the custom domain to a repository you own)'),
  },
  {
    provider: 'Heroku',
    cnames: ['herokuapp.com', 'herokudns.com', 'herokussl.com'],
    markers: ['No such app', 'herokucdn.com/error-pages/no-such-app.html'],
    remediation: claimOrRemove('Heroku (create the app or add the domain to yours)'),
  },
  {
    provider: 'Amazon S3',
    cnames: ['s3.amazonaws.com'],
    patterns: [/\.s3[.-]([a-z0-9-]+\.)?amazonaws\.com$/, /\.s3-website[.-][a-z0-9-]+\.amazonaws\.com$/],
    markers: ['NoSuchBucket', 'The specified bucket does not exist'],
    remediation: claimOrRemove('Amazon S3 (create the bucket with this exact name in your account)'),
  },
  {
    provider: 'Microsoft Azure',
    cnames: [
      'azurewebsites.net',
      'cloudapp.net',
      'cloudapp.azure.com',
      'trafficmanager.net',
      'blob.core.windows.net',
      'azureedge.net',
      'azure-api.net',
      'azurefd.net',
    ],
    markers: ['404 Web Site not found', 'The resource you are looking for has been removed'],
    remediation: claimOrRemove('Microsoft Azure (recreate the resource)'),
  },
  {
    provider: 'Fastly',
    cnames: ['fastly.net'],
    markers: ['Fastly error: unknown domain'],
    remediation: claimOrRemove('Fastly (add the domain to a service you own)'),
  },
  {
    provider: 'Shopify',
    cnames: ['myshopify.com'],
    markers: ['Sorry, this shop is currently unavailable.', 'Only one step left!'],
    remediation: claimOrRemove('Shopify (connect the domain to your store)'),
  },
  {
    provider: 'Netlify',
    cnames: ['netlify.app', 'netlify.com'],
    markers: ['Not Found - Request ID'],
    remediation: claimOrRemove('Netlify (add the domain to your site)'),
  },
  {
    provider: 'Vercel',
    cnames: ['vercel.app', 'now.sh', 'vercel-dns.com'],
    markers: ['The deployment could not be found on Vercel', 'DEPLOYMENT_NOT_FOUND'],
    remediation: claimOrRemove('Vercel (add the domain to your project)'),
  },
  {
    provider: 'Zendesk',
    cnames: ['zendesk.com'],
    markers: ['Help Center Closed', 'this help center no longer exists'],
    remediation: claimOrRemove('Zendesk (set the host mapping in your Help Center)'),
  },
  {
    provider: 'Bitbucket',
    cnames: ['bitbucket.io'],
    markers: ['Repository not found'],
    remediation: claimOrRemove('Bitbucket Cloud'),
  },
  {
    provider: 'Ghost',
    cnames: ['ghost.io'],
    markers: ['The thing you were looking for is no longer here'],
    remediation: claimOrRemove('Ghost(Pro)'),
  },
  {
    provider: 'Pantheon',
    cnames: ['pantheonsite.io'],
    markers: ['The gods are wise, but do not know of the site which you seek.'],
    remediation: claimOrRemove('Pantheon'),
  },
  {
    provider: 'Surge.sh',
    cnames: ['surge.sh'],
    markers: ['project not found'],
    remediation: claimOrRemove('Surge.sh'),
  },
  {
    provider: 'Tumblr',
    cnames: ['domains.tumblr.com'],
    markers: ["There's nothing here.", "Whatever you were looking for doesn't currently exist at this address"],
    remediation: claimOrRemove('Tumblr'),
  },
  {
    provider: 'Unbounce',
    cnames: ['unbouncepages.com'],
    markers: ['The requested URL was not found on this server.'],
    remediation: claimOrRemove('Unbounce'),
  },
  {
    provider: 'Help Scout',
    cnames: ['helpscoutdocs.com'],
    markers: ['No settings were found for this company:'],
    remediation: claimOrRemove('Help Scout Docs'),
  },
  {
    provider: 'Cargo',
    cnames: ['cargocollective.com'],
    markers: ['404 Not Found'],
    remediation: claimOrRemove('Cargo'),
  },
  {
    provider: 'Readme.io',
    cnames: ['readme.io'],
    markers: ['Project doesnt exist... yet!'],
    remediation: claimOrRemove('ReadMe'),
  },
  { provider: 'Fly.io', cnames: ['fly.dev'], markers: [], remediation: claimOrRemove('Fly.io') },
  {
    provider: 'Agile CRM',
    cnames: ['agilecrm.com'],
    markers: ['Sorry, this page is no longer available.'],
    remediation: claimOrRemove('Agile CRM'),
  },
];

/** The provider whose CNAME suffix matches `target`, if any. */
export function providerFor(
  target: string,
  list: readonly TakeoverFingerprint[] = TAKEOVER_FINGERPRINTS,
): TakeoverFingerprint | undefined {
  const t = target.toLowerCase().replace(/\.$/, '');
  return list.find(
    (f) => f.cnames.some((c) => t === c || t.endsWith(`.${c}`)) || (f.patterns ?? []).some((re) => re.test(t)),
  );
}
