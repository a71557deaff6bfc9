// Exposure scanning: start and list scans, list findings (per domain and across the team), and the
// user-added names of a domain's inventory.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { listBody } from '../shape.js';
import {
  findingJson,
  scanJson,
  type ExposureCategory,
  type FindingStatus,
  type Severity,
} from '../../domain/exposure.js';
import { readCache } from '../middleware/read-cache.js';
import { created, page, pathId, team } from './common.js';

type FindingQuery = {
  limit?: number;
  offset?: number;
  severity?: Severity;
  category?: ExposureCategory;
  status?: FindingStatus;
  domain_id?: string;
};

export function exposureRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const x = s.exposure;
  const findingsCache = readCache(deps.stamp, 'findings');

  router.post('/api/v1/domains/:domainId/exposure/scans', ...secure, async (ctx) => {
    const scan = await x.start(team(ctx), pathId(ctx, 'domainId', 'Domain'));
    ctx.status = 202;
    ctx.body = scanJson(scan);
  });
  router.get('/api/v1/domains/:domainId/exposure/scans', ...secure, async (ctx) => {
    const id = pathId(ctx, 'domainId', 'Domain');
    const q = v.query<{ limit?: number; offset?: number }>('exposure-scans', ctx.query);
    ctx.body = listBody('scans', await x.listScans(team(ctx), id, page(q)), scanJson);
  });
  router.get('/api/v1/exposure/scans/:scanId', ...secure, async (ctx) => {
    ctx.body = scanJson(await x.getScan(team(ctx), pathId(ctx, 'scanId', 'Exposure scan')));
  });

  router.get('/api/v1/domains/:domainId/exposure/findings', ...secure, findingsCache, async (ctx) => {
    const id = pathId(ctx, 'domainId', 'Domain');
    const q = v.query<FindingQuery>('exposure-findings', ctx.query);
    ctx.body = listBody(
      'findings',
      await x.listFindings(
        team(ctx),
        { severity: q.severity, category: q.category, status: q.status, domain_id: id },
        page(q),
      ),
      findingJson,
    );
  });
  router.get('/api/v1/exposure/findings', ...secure, findingsCache, async (ctx) => {
    const q = v.query<FindingQuery>('exposure-findings', ctx.query);
    ctx.body = listBody(
      'findings',
      await x.listFindings(
        team(ctx),
        { severity: q.severity, category: q.category, status: q.status, domain_id: q.domain_id },
        page(q),
      ),
      findingJson,
    );
  });
  router.get('/api/v1/exposure/findings/:findingId', ...secure, async (ctx) => {
    ctx.body = findingJson(await x.getFinding(team(ctx), pathId(ctx, 'findingId', 'Exposure finding')));
  });

  router.get('/api/v1/domains/:domainId/exposure/subdomains', ...secure, async (ctx) => {
    const list = await x.listSubdomains(team(ctx), pathId(ctx, 'domainId', 'Domain'));
    ctx.body = { data: list, subdomains: list, total: list.length };
  });
  router.post('/api/v1/domains/:domainId/exposure/subdomains', ...secure, async (ctx) => {
    const id = pathId(ctx, 'domainId', 'Domain');
    const body = v.body<{ name: string }>('exposure-subdomain', ctx.request.body);
    created(ctx, await x.addSubdomain(team(ctx), id, body.name));
  });
  router.delete('/api/v1/domains/:domainId/exposure/subdomains/:subdomainId', ...secure, async (ctx) => {
    const id = pathId(ctx, 'domainId', 'Domain');
    const subId = pathId(ctx, 'subdomainId', 'Subdomain');
    await x.removeSubdomain(team(ctx), id, subId);
    ctx.body = { message: 'Subdomain removed', deleted_subdomain: { id: subId } };
  });
}
