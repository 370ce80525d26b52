// Return URLs every redirect field refuses with 422 url_not_allowed when the only allowed origin
// is https://app.example.test: other sites, disguised hosts, credentials, foreign schemes, relative
// and over-long URLs. Shared by the checkout and portal error tests.
export const REFUSED_URLS = [
  '//evil.example/x',
  'https://app.example.test.evil.example/x',
  'https://user@evil.example/x',
  'https://app.example.test@evil.example/x',
  'javascript:alert(1)',
  'data:text/html,hi',
  'ftp://app.example.test/x',
  '/relative/path',
  'https:\\\\evil.example',
  'http://app.example.test/x',
  'https://app.example.test:8443/x',
  `https://app.example.test/${'a'.repeat(3000)}`,
  ' https://app.example.test/x',
];
