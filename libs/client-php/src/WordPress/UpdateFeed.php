<?php

namespace Licensing\WordPress;

use Licensing\Http\Transport;
use Licensing\LicensingException;

/**
 * The service's WordPress feed (`{api_base}/updates/{product_id}/wordpress.json`, see
 * docs/updaters/wordpress.md) for the site's key, kept a short while in a transient as updaters
 * do: WordPress asks for updates on many admin pages and twice in each check. A failure is kept
 * for a shorter while, so a server that is down does not slow every page.
 */
final class UpdateFeed
{
    /** How long no answer is kept before asking again. */
    private const FAILURE_SECONDS = 600;

    /** @var string */
    private $url;
    /** @var callable(): Transport */
    private $transport;
    /** @var float */
    private $timeout;
    /** @var string */
    private $transient;
    /** @var int */
    private $seconds;

    /** @param callable(): Transport $transport */
    public function __construct(string $url, callable $transport, float $timeout, string $transient, int $seconds)
    {
        $this->url = $url;
        $this->transport = $transport;
        $this->timeout = $timeout;
        $this->transient = $transient;
        $this->seconds = $seconds;
    }

    /**
     * The feed's answer (`version`, `download_url` when the key may download, `sections`, ...);
     * null when it offers nothing to this caller or could not be read.
     *
     * @return array<string, mixed>|null
     */
    public function latest(string $licenseKey, string $identifier, string $channel): ?array
    {
        $query = array_filter([
            'license_key' => $licenseKey,
            'identifier' => $identifier,
            'channel' => $channel === 'stable' ? '' : $channel,
        ], 'strlen');
        $url = $this->url . '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        $fingerprint = md5($url);
        $kept = get_transient($this->transient);
        if (is_array($kept) && isset($kept['for']) && $kept['for'] === $fingerprint && array_key_exists('feed', $kept)) {
            return is_array($kept['feed']) ? $kept['feed'] : null;
        }
        list($feed, $keep) = $this->fetch($url);
        if ($keep > 0) {
            // A transient kept for 0 seconds would never expire: 0 keeps nothing.
            set_transient($this->transient, ['for' => $fingerprint, 'feed' => $feed], $keep);
        }
        return $feed;
    }

    /** Forgets the answer kept, so that the next check asks the server. */
    public function forget(): void
    {
        delete_transient($this->transient);
    }

    /** @return array{0: array<string, mixed>|null, 1: int} the feed, and how long to keep it */
    private function fetch(string $url): array
    {
        try {
            $answer = ($this->transport)()->send('GET', $url, ['Accept' => 'application/json'], null, $this->timeout);
        } catch (LicensingException $e) {
            return [null, min($this->seconds, self::FAILURE_SECONDS)];
        }
        if ($answer->status === 404) {
            // No version for this caller: a settled answer, kept as long as a feed.
            return [null, $this->seconds];
        }
        $feed = $answer->status === 200 ? json_decode($answer->body, true) : null;
        if (!is_array($feed) || !isset($feed['version']) || !is_string($feed['version'])) {
            return [null, min($this->seconds, self::FAILURE_SECONDS)];
        }
        return [$feed, $this->seconds];
    }
}
