/** The request fences: which Host, Origin, fetch site, content type, size and method get through to a verb or a download. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  checkDownload,
  checkRequest,
  parseAllowedHosts,
  type DownloadRequest,
  type FenceRequest,
} from '../src/routes/fence.ts'

const base: FenceRequest = {
  method: 'POST',
  host: '127.0.0.1:3999',
  origin: undefined,
  secFetchSite: undefined,
  contentType: 'application/json',
  contentLength: '2',
}
const check = (changes: Partial<FenceRequest>, allowed: readonly string[] = [], limit = 1024) =>
  checkRequest({ ...base, ...changes }, allowed, limit)

describe('checkRequest', () => {
  it('lets a same-origin JSON POST to a loopback host through', () => {
    assert.equal(check({}), undefined)
    assert.equal(
      check({ host: 'localhost:3999', origin: 'http://localhost:3999', secFetchSite: 'same-origin' }),
      undefined,
    )
    assert.equal(check({ host: '[::1]:3999', origin: 'http://[::1]:3999' }), undefined)
    assert.equal(check({ host: '127.8.9.10' }), undefined)
  })

  it('accepts private IP literals without configuration', () => {
    for (const host of [
      '10.0.0.5:80',
      '172.16.0.1:3999',
      '172.31.255.255',
      '192.168.1.20:3999',
      '169.254.1.1',
      '[fd12:3456::1]:3999',
      '[fe80::1]:3999',
    ]) {
      assert.equal(check({ host }), undefined, host)
    }
  })

  it('refuses public addresses and names unless the user allowed the name', () => {
    for (const host of [
      'evil.example:3999',
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '[2001:db8::1]:3999',
      'localhost.evil.example',
    ]) {
      assert.equal(check({ host })?.status, 403, host)
    }
    assert.equal(check({ host: 'memory.lan:3999' }, ['memory.lan']), undefined)
    assert.equal(check({ host: 'MEMORY.LAN:3999' }, parseAllowedHosts('memory.lan, other.lan')), undefined)
  })

  it('refuses a missing or malformed Host', () => {
    assert.equal(check({ host: undefined })?.code, 'forbidden')
    assert.equal(check({ host: '' })?.code, 'forbidden')
    assert.equal(check({ host: '127.0.0.1:notaport' })?.code, 'forbidden')
    assert.equal(check({ host: '[::1' })?.code, 'forbidden')
  })

  it('refuses an Origin other than the request\'s own, including "null"', () => {
    assert.equal(check({ origin: 'http://evil.example' })?.status, 403)
    assert.equal(check({ origin: 'http://127.0.0.1:4000' })?.status, 403)
    assert.equal(check({ origin: 'null' })?.status, 403)
    assert.equal(check({ origin: 'https://127.0.0.1:3999' }), undefined)
  })

  it('refuses cross-site fetches', () => {
    assert.equal(check({ secFetchSite: 'cross-site' })?.status, 403)
    assert.equal(check({ secFetchSite: 'Cross-Site' })?.status, 403)
  })

  it('refuses anything but JSON with 415, so no CORS-simple request gets through', () => {
    for (const contentType of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ]) {
      assert.equal(check({ contentType })?.status, 415, String(contentType))
    }
    assert.equal(check({ contentType: 'Application/JSON; charset=utf-8' }), undefined)
  })

  it("refuses a declared size above the verb's limit with 413", () => {
    assert.equal(check({ contentLength: '1025' })?.status, 413)
    assert.equal(check({ contentLength: '-1' })?.status, 413)
    assert.equal(check({ contentLength: '1024' }), undefined)
  })

  it('refuses every method but POST with 405', () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS', undefined])
      assert.equal(check({ method })?.status, 405, String(method))
  })
})

describe('checkDownload', () => {
  const download = (changes: Partial<DownloadRequest>, allowed: readonly string[] = []) =>
    checkDownload(
      { method: 'GET', host: '127.0.0.1:3999', origin: undefined, secFetchSite: undefined, ...changes },
      allowed,
    )

  it("lets the page's own link, a typed address and a non-browser client through, by GET or HEAD", () => {
    assert.equal(download({}), undefined)
    assert.equal(download({ secFetchSite: 'same-origin' }), undefined)
    assert.equal(download({ secFetchSite: 'none' }), undefined)
    assert.equal(download({ method: 'HEAD', origin: 'http://127.0.0.1:3999' }), undefined)
    assert.equal(download({ host: 'memory.lan', secFetchSite: 'same-origin' }, ['memory.lan']), undefined)
  })

  it('refuses another site behind the request, even a sibling port, a foreign Origin or Host, and other methods', () => {
    assert.equal(download({ secFetchSite: 'cross-site' })?.status, 403)
    assert.equal(download({ secFetchSite: 'same-site' })?.status, 403)
    assert.equal(download({ origin: 'http://127.0.0.1:8080' })?.status, 403)
    assert.equal(download({ origin: 'null' })?.status, 403)
    assert.equal(download({ host: 'evil.example' })?.status, 403)
    assert.equal(download({ host: undefined })?.status, 403)
    for (const method of ['POST', 'PUT', 'DELETE', undefined])
      assert.equal(download({ method })?.status, 405, String(method))
  })
})
