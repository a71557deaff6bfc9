// The built package holds the dashboard's bundle and the compiled server side of src/web/ in one
// directory (dist/web/): building the bundle must not remove what scripts/compile.mjs wrote there (it once did, and
// `dommon serve` from dist/ could not start).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';

const dist = path.resolve('dist');
const skip = fs.existsSync(path.join(dist, 'web', 'index.html')) ? false : 'dist/ is not built (npm run build)';

t.test('dist/web holds the bundle and the compiled server modules', { skip }, async (t) => {
  for (const f of ['index.html', 'size.json', 'serve.js', 'session.js', 'status-page.js'])
    t.ok(fs.existsSync(path.join(dist, 'web', f)), `dist/web/${f}`);
  t.ok(
    fs.readdirSync(path.join(dist, 'web', 'assets')).some((f) => f.endsWith('.js')),
    'dist/web/assets/*.js',
  );
  // Every module the compiled API imports from dist/web exists.
  const server = fs.readFileSync(path.join(dist, 'api', 'server.js'), 'utf8');
  for (const m of server.matchAll(/from '\.\.\/web\/([\w-]+\.js)'/g))
    t.ok(fs.existsSync(path.join(dist, 'web', m[1]!)), `dist/api/server.js imports ../web/${m[1]}`);
});
