// `dommon token ...` and `dommon users ...`.
import type { Command } from 'commander';
import { table, UsageError } from '../output.js';
import { run } from '../run.js';
import { parseExpiry, parseRole } from '../../services/access.js';
import { linkUrl } from '../../domain/one-time-link.js';
import { loadConfig, type Config } from '../../config/index.js';

export function tokenCommands(program: Command): void {
  const token = program.command('token').description('API tokens (shown once, stored only as hashes)');
  token
    .command('create')
    .description('create a token for --team NAME (creating the team and user if needed); prints the token alone, once')
    .option('--user <email>', "the token's user (default: the team's first user, or admin@localhost)")
    .option('--name <label>', 'token name')
    .option('--read-only', 'the token may only read: every write it sends is refused (403 READ_ONLY_TOKEN)')
    .option(
      '--role <role>',
      "the token's own role: owner, editor or viewer, no higher than its user's (default: the user's role, whatever it is at the time)",
    )
    .option(
      '--expires <when>',
      'when the token stops being accepted: a duration from now (90d, 12h, 2w, 1y) or a date or date-time (2027-01-31, 2027-01-31T12:00:00Z); default: never',
    )
    .option(
      '--operator',
      "an operator token: GET /api/v1/nodes shows it every node's details (host, pid, version); other tokens see counts and regions",
    )
    .action(
      run(
        async (
          ctx,
          o: { user?: string; name?: string; readOnly?: boolean; operator?: boolean; role?: string; expires?: string },
        ) => {
          if (!ctx.opts.team) throw new UsageError('token create needs --team NAME');
          const role = o.role === undefined ? null : parseRole(o.role);
          const expiresAt = o.expires === undefined ? null : parseExpiry(o.expires, new Date());
          const { services } = await ctx.local();
          const t = await services.access.createToken({
            team: ctx.opts.team,
            user: o.user,
            name: o.name,
            readOnly: o.readOnly === true,
            operator: o.operator === true,
            role,
            expiresAt,
          });
          ctx.print.out(t, () => t.token);
        },
      ),
    );
  token
    .command('list')
    .description(
      "list tokens (never their secret): each one's scope, own role (- : its user's), expiry and last use (written about once a minute)",
    )
    .action(
      run(async (ctx) => {
        const { services } = await ctx.local();
        const rows = await services.access.listTokens(ctx.opts.team);
        ctx.print.out(rows, () =>
          table(
            rows.map((r) => ({
              ...r,
              scope: r.read_only ? 'read-only' : 'full',
              operator: r.operator ? 'yes' : 'no',
            })),
            [
              'id',
              'name',
              'team',
              'user',
              'scope',
              'role',
              'operator',
              'prefix',
              'created_at',
              'expires_at',
              'last_used_at',
              'revoked_at',
            ],
          ),
        );
      }),
    );
  token
    .command('revoke <id>')
    .description('revoke a token')
    .action(
      run(async (ctx, id: string) => {
        const { services } = await ctx.local();
        const t = await services.access.revokeToken(id);
        ctx.print.out(t, () => `revoked token ${t.id} (${t.name})`);
      }),
    );
}

export function userCommands(program: Command): void {
  const users = program.command('users').description("the team's users");
  users
    .command('list')
    .description("list the team's users")
    .action(
      run(async (ctx) => {
        const { services } = await ctx.local();
        const rows = await services.access.listUsers(ctx.opts.team);
        ctx.print.out(rows, () => table(rows, ['id', 'email', 'role', 'created_at']));
      }),
    );
  users
    .command('add <email>')
    .description(
      "add a user to the team (--team creates the team if needed: a new team's first member is its owner, whatever --role says); prints a one-time link (24 h) where the user sets a password and is signed in",
    )
    .option('--role <role>', 'owner, editor or viewer (docs/accounts.md)', 'owner')
    .option(
      '--public-url <url>',
      'the address the dashboard is reached at, for the link (DOMMON_PUBLIC_URL, default: http://DOMMON_HOST:DOMMON_PORT)',
    )
    .action(
      run(async (ctx, email: string, o: { role: string; publicUrl?: string }) => {
        const base = linkBase(o.publicUrl, ctx.config);
        const { services } = await ctx.local();
        const asked = parseRole(o.role);
        const u = await services.access.addUser(ctx.opts.team, email, asked);
        const link = await services.links.signInLink(u.team_id, u.email);
        const url = linkUrl(base, link.token);
        ctx.print.out(
          { ...u, sign_in_url: url, sign_in_expires_at: link.expires_at },
          () => `added ${u.email} (${u.id}) as ${u.role}\nsign-in link (one use, until ${link.expires_at}): ${url}`,
        );
        if (u.team_created && u.role !== asked)
          process.stderr.write(
            `dommon: team "${ctx.opts.team?.trim()}" is new, so its first member is its owner (not ${asked}): add another owner, then users set-role ${u.email} ${asked}\n`,
          );
      }),
    );
  users
    .command('set-role <email> <role>')
    .description("change a user's role in the team: owner, editor or viewer (applies at once to the user's tokens)")
    .action(
      run(async (ctx, email: string, role: string) => {
        const { services } = await ctx.local();
        const u = await services.access.setRole(ctx.opts.team, email, parseRole(role));
        ctx.print.out(u, () => `${u.email} is now ${u.role}`);
      }),
    );
  users
    .command('set-password <email>')
    .description(
      'give a user a dashboard password, read from standard input (its first line); the user signs in with e-mail and password',
    )
    .action(
      run(async (ctx, email: string) => {
        if (process.stdin.isTTY)
          throw new UsageError(
            "pipe the password in, so it is neither echoed nor kept in the shell's history: printf '%s\\n' \"$PW\" | dommon users set-password EMAIL",
          );
        const password = await firstLine(process.stdin);
        const { services } = await ctx.local();
        const r = await services.access.setPassword(ctx.opts.team, email, password);
        ctx.print.out(
          r,
          () =>
            `password set for ${r.email} in team ${r.team}; ended ${r.ended_sessions} signed-in session(s) of the old password`,
        );
      }),
    );
  users
    .command('remove <email>')
    .description("remove a user and revoke the user's tokens")
    .action(
      run(async (ctx, email: string) => {
        const { services } = await ctx.local();
        const r = await services.access.removeUser(ctx.opts.team, email);
        ctx.print.out(r, () => `removed ${r.user.email}; revoked ${r.revoked_tokens} token(s)`);
      }),
    );
}

/** The first line of a stream (a password piped in, or typed at a terminal and ended with Enter). */
async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/**
 * Where a printed link points: --public-url, else DOMMON_PUBLIC_URL, else the address `serve` listens on
 * (a wildcard address as localhost).
 */
function linkBase(flag: string | undefined, config: Readonly<Config>): string {
  if (flag !== undefined) return loadConfig({ publicUrl: flag, dataDir: config.dataDir }).publicUrl!;
  if (config.publicUrl) return config.publicUrl;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}
