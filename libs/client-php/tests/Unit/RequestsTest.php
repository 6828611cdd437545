<?php

namespace Licensing\Tests\Unit;

use Licensing\LicensingClient;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/** Each call sends what the TypeScript client sends: its endpoint, its fields, its headers. */
final class RequestsTest extends TestCase
{
    private const ACTIVATION = [
        'status' => 'active',
        'license_key' => 'KEY-1',
        'product' => 'My Plugin',
        'plan' => 'Single site',
        'activation_type' => 'domain',
        'activation_limit' => 3,
        'activations_used' => 1,
        'expires_at' => null,
        'identifier' => 'example.com',
        'lease_expires_at' => null,
        'entitlements' => ['pro'],
    ];

    private function client(FakeTransport $transport, array $options = []): LicensingClient
    {
        return new LicensingClient('https://shop.example.com/store/', 12, $options + ['transport' => $transport]);
    }

    public function testTheApiBaseIsTheStoreRootWithTheVersionedPath(): void
    {
        $client = $this->client(new FakeTransport([]));
        $this->assertSame('https://shop.example.com/store/api/index.php/v1/licensing', $client->apiBase());
        $bare = new LicensingClient('http://shop.example.com?x=1#top', 3, ['transport' => new FakeTransport([])]);
        $this->assertSame('http://shop.example.com/api/index.php/v1/licensing', $bare->apiBase());
    }

    public function testActivatePostsTheKeyTheIdentifierAndTheProductAsAForm(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $activation = $this->client($transport)->activate('KEY-1', 'https://www.example.com/');
        $request = $transport->requests[0];
        $this->assertSame('POST', $request['method']);
        $this->assertSame('https://shop.example.com/store/api/index.php/v1/licensing/licenses/activate', $request['url']);
        $this->assertSame('license_key=KEY-1&identifier=https%3A%2F%2Fwww.example.com%2F&product_id=12', $request['body']);
        $this->assertSame('application/x-www-form-urlencoded', $request['headers']['Content-Type']);
        $this->assertSame('application/json', $request['headers']['Accept']);
        $this->assertSame('example.com', $activation->identifier);
        $this->assertSame(3, $activation->activation_limit);
        $this->assertSame(['pro'], $activation->entitlements);
        $this->assertSame(self::ACTIVATION, array_intersect_key($activation->toArray(), self::ACTIVATION));
    }

    public function testValidateSendsTheIdentifierAndEntitlementsOnlyWhenGiven(): void
    {
        $answer = ['valid' => true, 'status' => 'active', 'license_key' => 'KEY-1', 'identifier_activated' => true];
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => $answer]), FakeTransport::json(200, ['data' => $answer])]);
        $client = $this->client($transport);
        $validation = $client->validate('KEY-1');
        $client->validate('KEY-1', 'example.com', ['pro', 'updates-3y']);
        $this->assertSame('license_key=KEY-1&product_id=12', $transport->requests[0]['body']);
        $this->assertSame('license_key=KEY-1&identifier=example.com&entitlements=pro%2Cupdates-3y&product_id=12', $transport->requests[1]['body']);
        $this->assertStringEndsWith('/licenses/validate', $transport->requests[0]['url']);
        $this->assertTrue($validation->valid);
        $this->assertFalse($validation->isStale());
        $this->assertNull($validation->checkedAt());
    }

    public function testDeactivatePostsTheKeyTheIdentifierAndTheProduct(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => ['activations_used' => 0] + self::ACTIVATION])]);
        $result = $this->client($transport)->deactivate('KEY-1', 'example.com');
        $this->assertStringEndsWith('/licenses/deactivate', $transport->requests[0]['url']);
        $this->assertSame('license_key=KEY-1&identifier=example.com&product_id=12', $transport->requests[0]['body']);
        $this->assertSame(0, $result->activations_used);
    }

    public function testCheckForUpdateGetsTheProductsUpdateWithItsOptionsInTheQuery(): void
    {
        $data = ['update_available' => true, 'name' => 'My Plugin', 'version' => '2.0.0', 'download_url' => 'https://x/d', 'file_size' => 10, 'requires_license' => true];
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => $data]), FakeTransport::json(200, ['data' => $data])]);
        $client = $this->client($transport);
        $info = $client->checkForUpdate('', []);
        $client->checkForUpdate('KEY 1', ['version' => '1.0.0', 'channel' => 'beta', 'identifier' => 'example.com']);
        $base = 'https://shop.example.com/store/api/index.php/v1/licensing/updates/12';
        $this->assertSame($base, $transport->requests[0]['url']);
        $this->assertSame($base . '?license_key=KEY%201&identifier=example.com&channel=beta&version=1.0.0', $transport->requests[1]['url']);
        $this->assertSame('GET', $transport->requests[1]['method']);
        $this->assertNull($transport->requests[1]['body']);
        $this->assertTrue($info->update_available);
        $this->assertSame('2.0.0', $info->version);
    }

    public function testTheStableChannelIsNotSentSinceItIsTheDefault(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => ['update_available' => false]])]);
        $this->client($transport)->checkForUpdate('K', ['channel' => 'stable']);
        $this->assertStringEndsWith('/updates/12?license_key=K', $transport->requests[0]['url']);
    }

    public function testDownloadUrlCarriesTheKeyAsDlidAndTheIdentifier(): void
    {
        $client = $this->client(new FakeTransport([]));
        $this->assertSame(
            'https://shop.example.com/store/api/index.php/v1/licensing/downloads/12?dlid=KEY-1&identifier=example.com&version=2.0.0',
            $client->downloadUrl('KEY-1', ['identifier' => 'example.com', 'version' => '2.0.0'])
        );
        $this->assertStringEndsWith('/downloads/12?dlid=KEY-1', $client->downloadUrl('KEY-1'));
    }

    public function testExtraHeadersAreSentButNeverReplaceAcceptOrTheFormType(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $this->client($transport, ['headers' => ['User-Agent' => 'MyPlugin/1.0', 'Accept' => 'text/html']])->activate('K', 'x');
        $headers = $transport->requests[0]['headers'];
        $this->assertSame('MyPlugin/1.0', $headers['User-Agent']);
        $this->assertSame('application/json', $headers['Accept']);
    }

    public function testAHeaderTheClientSetsIsSentOnceWhateverTheCaseOfTheOneGiven(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $headers = ['accept' => 'text/html', 'content-type' => 'text/plain', 'user-agent' => 'MyPlugin/1.0'];
        $this->client($transport, ['headers' => $headers])->activate('K', 'x');
        $sent = array_change_key_case($transport->requests[0]['headers']);
        $this->assertCount(count($transport->requests[0]['headers']), $sent, 'a header sent twice');
        $this->assertSame('application/json', $sent['accept']);
        $this->assertSame('application/x-www-form-urlencoded', $sent['content-type']);
        $this->assertSame('MyPlugin/1.0', $sent['user-agent']);
    }
}
