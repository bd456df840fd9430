import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestFromEvent, resultFromResponse } from './api-gateway.js';

function event(overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'PATCH /api/stacks/{orgName}/{projectName}/{stackName}/update/{updateId}/checkpoint',
    rawPath: '/api/stacks/acme/proj/dev/update/u1/checkpoint',
    rawQueryString: 'force=true&x=1',
    headers: { 'content-encoding': 'gzip', authorization: 'update-token t' },
    requestContext: {
      accountId: '1',
      apiId: 'a',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'PATCH', path: '/api/stacks/acme/proj/dev/update/u1/checkpoint', protocol: 'HTTP/1.1', sourceIp: '1.2.3.4', userAgent: 'pulumi-cli/1' },
      requestId: 'apigw-req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...overrides,
  };
}

describe('requestFromEvent', () => {
  it('restores the wire bytes of a base64-encoded body', () => {
    const wire = gzipSync(Buffer.from('{"version":3}'));

    const request = requestFromEvent(event({ body: wire.toString('base64'), isBase64Encoded: true }));

    expect(request.body.equals(wire)).toBe(true);
    expect(request).toMatchObject({ method: 'PATCH', path: '/api/stacks/acme/proj/dev/update/u1/checkpoint', requestId: 'apigw-req-1' });
    expect(request.query.get('force')).toBe('true');
    expect(request.headers.authorization).toBe('update-token t');
  });

  it('takes a text body as UTF-8 and a missing body as empty', () => {
    expect(requestFromEvent(event({ body: '{"a":"é"}' })).body.toString('utf8')).toBe('{"a":"é"}');
    expect(requestFromEvent(event()).body.length).toBe(0);
  });

  it('gives the core the cookies payload v2 moved out of the headers', () => {
    const request = requestFromEvent(event({ cookies: ['theme=dark', 'stackyard-session=abc'] }));

    expect(request.headers.cookie).toBe('theme=dark; stackyard-session=abc');
  });
});

describe('resultFromResponse', () => {
  it('returns a gzip body base64-encoded', () => {
    const body = gzipSync(Buffer.from('{"a":1}'));

    const result = resultFromResponse({ status: 200, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });

    expect(result.isBase64Encoded).toBe(true);
    expect(Buffer.from(result.body!, 'base64').equals(body)).toBe(true);
  });

  it('returns JSON as text and an empty body as an empty string', () => {
    expect(resultFromResponse({ status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"code":404}') })).toMatchObject({
      statusCode: 404,
      body: '{"code":404}',
      isBase64Encoded: false,
    });
    expect(resultFromResponse({ status: 200, headers: {}, body: Buffer.alloc(0) })).toMatchObject({ body: '', isBase64Encoded: false });
  });

  it('sets a cookie through payload v2 `cookies`, not a header', () => {
    const result = resultFromResponse({ status: 200, headers: { 'set-cookie': 'stackyard-session=x; HttpOnly' }, body: Buffer.alloc(0) });

    expect(result.cookies).toEqual(['stackyard-session=x; HttpOnly']);
    expect(result.headers).not.toHaveProperty('set-cookie');
  });
});
