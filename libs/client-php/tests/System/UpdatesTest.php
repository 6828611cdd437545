<?php

namespace Licensing\Tests\System;

use Licensing\Http\CurlTransport;
use Licensing\Http\StreamTransport;
use Licensing\Http\Transport;

/** Spec 4.4 and 4.5 through the PHP client against the real system. */
final class UpdatesTest extends SystemTestCase
{
    public function testCheckForUpdateNamesTheReleaseAndTheLicensesState(): void
    {
        $info = $this->client()->checkForUpdate(self::setting('LICENSE_KEY'), ['version' => '0.9.0']);
        $this->assertTrue($info->update_available);
        $this->assertSame(self::setting('VERSION'), $info->version);
        $this->assertSame('PHP Client Plugin', $info->name);
        $this->assertSame('license_key', $info->download_requires);
        $this->assertSame((int) self::setting('PACKAGE_SIZE'), $info->file_size);
        $this->assertSame(self::setting('PACKAGE_SHA256'), $info->sha256);
        $this->assertSame('active', $info->license_status);
        $this->assertStringEndsWith('/api/index.php/v1/licensing/downloads/' . self::productId(), (string) parse_url((string) $info->download_url, PHP_URL_PATH));
    }

    public function testWithoutAKeyTheUpdateCheckHasNoLicenseState(): void
    {
        $info = $this->client()->checkForUpdate('');
        $this->assertTrue($info->update_available);
        $this->assertNull($info->license_status);
    }

    /** @return array<string, array{0: Transport}> */
    public function transports(): array
    {
        return ['curl' => [new CurlTransport()], 'streams' => [new StreamTransport()]];
    }

    /** @dataProvider transports */
    public function testTheDownloadUrlServesThePackage(Transport $transport): void
    {
        $client = $this->client();
        $key = self::setting('LICENSE_KEY');
        $host = self::identifier('download');
        $client->activate($key, $host);
        foreach ([$client->downloadUrl($key), $client->downloadUrl($key, ['identifier' => $host, 'version' => self::setting('VERSION')])] as $url) {
            $answer = $transport->send('GET', $url, ['Accept' => 'application/json'], null, 30.0);
            $this->assertSame(200, $answer->status, $answer->body);
            $this->assertSame((int) self::setting('PACKAGE_SIZE'), strlen($answer->body));
            $this->assertSame(self::setting('PACKAGE_SHA256'), hash('sha256', $answer->body));
        }
        $client->deactivate($key, $host);
    }

    public function testADownloadForAnIdentifierNotActivatedIsAJsonError(): void
    {
        $url = $this->client()->downloadUrl(self::setting('LICENSE_KEY'), ['identifier' => self::identifier('never')]);
        $answer = (new CurlTransport())->send('GET', $url, ['Accept' => 'application/json'], null, 30.0);
        $this->assertNotSame(200, $answer->status);
        $error = json_decode($answer->body, true);
        $this->assertSame('ACTIVATION_NOT_FOUND', $error['error']['code']);
    }
}
