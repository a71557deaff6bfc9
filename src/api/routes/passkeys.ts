// Passkeys in account settings (docs/accounts.md#passkeys): list, ask for registration options,
// register (the browser's answer, named), remove. They belong to the person's account, so only a
// person's session has any; the relying party is DOMMON_PUBLIC_URL's host, else the request's origin.
import type Koa from 'koa';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { ApiDeps, ApiRouter } from '../context.js';
import type { Passkey } from '../../domain/types.js';
import { created, pathId } from './common.js';

const passkeyJson = (k: Passkey) => ({
  id: k.id,
  name: k.name,
  credential_id: k.credential_id,
  transports: k.transports,
  sign_count: k.sign_count,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

export function passkeyRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const base = '/api/v1/account/passkeys';
  router.get(base, ...secure, async (ctx) => {
    ctx.body = { passkeys: (await s.passkeys.list(ctx.state.principal)).map(passkeyJson) };
  });
  router.post(`${base}/options`, ...secure, async (ctx) => {
    v.body('passkey-options', ctx.request.body);
    ctx.body = await s.passkeys.registrationOptions(ctx.state.principal, `${ctx.protocol}://${ctx.host}`);
  });
  router.post(base, ...secure, async (ctx) => {
    const body = v.body<{ name: string; response: RegistrationResponseJSON }>('passkey-create', ctx.request.body);
    created(ctx, passkeyJson(await s.passkeys.register(ctx.state.principal, `${ctx.protocol}://${ctx.host}`, body)));
  });
  router.delete(`${base}/:passkeyId`, ...secure, async (ctx) => {
    const k = await s.passkeys.remove(ctx.state.principal, pathId(ctx, 'passkeyId', 'Passkey'));
    ctx.body = { message: 'Passkey removed', removed_passkey: passkeyJson(k) };
  });
}
