// GET /docs: the OpenAPI document rendered by Swagger UI (swagger-ui-dist from npm), its files served
// by the daemon from the installed package (no CDN). Only the files named in DOCS_ASSETS are served;
// a request never turns into a filesystem path.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

interface DocsAsset {
  contentType: string;
  body: Buffer;
  etag: string;
}

/** The files /docs/<name> serves, with their content type; anything else is a 404. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
  // Ours, not the package's: starts the UI (a file, not an inline script, so a strict CSP works).
  'dommon-docs.js': 'text/javascript; charset=utf-8',
};

const SPEC_URL = '/api/v1/openapi.json';

/**
 * The CSP of /docs and its files: the dashboard's, except that Swagger UI sets inline styles (style
 * attributes React writes), so styles may be inline; scripts stay files of this origin only.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(SPEC_URL)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No badge fetched from validator.swagger.io: the page never talks to another origin.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** The page: Swagger UI's assets under /docs/, pointed at the document. */
export function docsHtml(title: string): string {
  const esc = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc}</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <noscript>This page needs JavaScript; the document itself is at <a href="${SPEC_URL}">${SPEC_URL}</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/dommon-docs.js"></script>
</body>
</html>
`;
}

/** The installed swagger-ui-dist folder and version (resolved through Node's module resolution). */
function swaggerUiDist(): { dir: string; version: string } {
  const pkg = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  return { dir: path.dirname(pkg), version: (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version };
}

/** Reads each allow-listed asset once, on first use; undefined for any other name. */
export function docsAssets(): (name: string) => DocsAsset | undefined {
  const cache = new Map<string, DocsAsset>();
  let dist: { dir: string; version: string } | undefined;
  return (name) => {
    if (!Object.hasOwn(DOCS_ASSETS, name)) return undefined;
    let asset = cache.get(name);
    if (!asset) {
      dist ??= swaggerUiDist();
      const body = name === 'dommon-docs.js' ? Buffer.from(INIT_JS) : fs.readFileSync(path.join(dist.dir, name));
      asset = {
        contentType: DOCS_ASSETS[name]!,
        body,
        etag: `"swagger-ui-dist-${dist.version}-${name}-${body.length}"`,
      };
      cache.set(name, asset);
    }
    return asset;
  };
}
