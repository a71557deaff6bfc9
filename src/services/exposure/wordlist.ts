// The bounded built-in list of labels tried under every scanned domain (common service names).
export const DEFAULT_WORDLIST: readonly string[] = [
  'www', 'mail', 'webmail', 'smtp', 'imap', 'pop', 'mx', 'ns1', 'ns2', 'dns', 'vpn', 'remote', 'portal', 'admin', 'api',
  'app', 'apps', 'auth', 'login', 'sso', 'id', 'dev', 'development', 'test', 'testing', 'stage', 'staging', 'preprod', 'uat',
  'qa', 'demo', 'beta', 'old', 'new', 'legacy', 'backup', 'blog', 'shop', 'store', 'status', 'docs', 'help', 'support',
  'kb', 'wiki', 'forum', 'community', 'cdn', 'static', 'assets', 'img', 'images', 'media', 'files', 'download', 'ftp',
  'git', 'gitlab', 'jenkins', 'ci', 'jira', 'grafana', 'kibana', 'monitor', 'db', 'mysql', 'postgres', 'redis', 'elastic',
  'search', 'intranet', 'internal', 'crm', 'erp', 'm', 'mobile', 'cloud', 'office', 'autodiscover', 'owa', 'exchange',
  'calendar', 'go', 'link', 'links', 'events', 'careers', 'jobs', 'marketing', 'news', 'pages', 'sandbox', 'web',
];
