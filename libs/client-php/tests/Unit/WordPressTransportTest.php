<?php

namespace Licensing\Tests\Unit;

use Licensing\Http\Transports;
use Licensing\Http\WordPressTransport;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use PHPUnit\Framework\TestCase;

/**
 * Inside WordPress the client goes through `wp_remote_request` (the site's proxy, certificates
 * and filters): each test runs in a process of its own, with WordPress's HTTP functions stubbed.
 *
 * @runTestsInSeparateProcesses
 * @preserveGlobalState disabled
 */
final class WordPressTransportTest extends TestCase
{
    protected function setUp(): void
    {
        require_once dirname(__DIR__) . '/Support/wordpress-http-stubs.php';
        $GLOBALS['licensing_wp_requests'] = [];
        $GLOBALS['licensing_wp_answers'] = [];
    }

    public function testWordPressIsTheDefaultTransportWhereItIsLoaded(): void
    {
        $this->assertInstanceOf(WordPressTransport::class, Transports::detect());
    }

    public function testACallGoesThroughWpRemoteRequestWithoutRedirectsAndWithTheTimeout(): void
    {
        $GLOBALS['licensing_wp_answers'][] = [
            'response' => ['code' => 200, 'message' => 'OK'],
            'headers' => ['Content-Type' => 'application/json', 'X-Repeated' => ['a', 'b']],
            'body' => '{"data":{"status":"active","license_key":"K","identifier":"example.com"}}',
        ];
        $client = new LicensingClient('https://shop.example.com', 12, ['timeout' => 7, 'headers' => ['User-Agent' => 'MyPlugin/1.0']]);
        $activation = $client->activate('K', 'example.com');
        $this->assertSame('example.com', $activation->identifier);
        $request = $GLOBALS['licensing_wp_requests'][0];
        $this->assertSame('https://shop.example.com/api/index.php/v1/licensing/licenses/activate', $request['url']);
        $this->assertSame('POST', $request['args']['method']);
        $this->assertSame('license_key=K&identifier=example.com&product_id=12', $request['args']['body']);
        $this->assertSame(0, $request['args']['redirection']);
        $this->assertFalse($request['args']['decompress']);
        $this->assertSame('MyPlugin/1.0', $request['args']['user-agent']);
        $this->assertArrayNotHasKey('User-Agent', $request['args']['headers']);
        $this->assertSame('application/json', $request['args']['headers']['Accept']);
        $this->assertLessThanOrEqual(7.0, $request['args']['timeout']);
        $this->assertGreaterThan(6.0, $request['args']['timeout']);
    }

    public function testHeadersAreReadByLowerCaseNameWithRepeatedOnesJoined(): void
    {
        $GLOBALS['licensing_wp_answers'][] = [
            'response' => ['code' => 429],
            'headers' => ['Retry-After' => '30', 'X-Repeated' => ['a', 'b']],
            'body' => '',
        ];
        $response = (new WordPressTransport())->send('GET', 'https://shop.example.com/x', [], null, 5.0);
        $this->assertSame(429, $response->status);
        $this->assertSame('30', $response->headers['retry-after']);
        $this->assertSame('a, b', $response->headers['x-repeated']);
    }

    public function testAWordPressErrorIsAConnectionError(): void
    {
        $GLOBALS['licensing_wp_answers'][] = new \WP_Error('http_request_failed', 'cURL error 7: Failed to connect');
        $GLOBALS['licensing_wp_answers'][] = new \WP_Error('http_request_failed', 'cURL error 28: Operation timed out after 5001 milliseconds');
        $transport = new WordPressTransport();
        foreach (['Connection error: cURL error 7: Failed to connect.', 'Connection error: no answer from the server within 5 seconds.'] as $message) {
            try {
                $transport->send('GET', 'https://shop.example.com/x', [], null, 5.0);
                $this->fail('The call was answered.');
            } catch (LicensingException $failure) {
                $this->assertSame(LicensingException::CONNECTION_ERROR, $failure->getErrorCode());
                $this->assertSame($message, $failure->getMessage());
            }
        }
    }
}
