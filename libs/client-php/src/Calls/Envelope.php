<?php

namespace Licensing\Calls;

use Licensing\Http\Response;
use Licensing\LicensingException;

/**
 * An answer of the API read (spec 1 and 7): the `data` object of a success, the `error` object
 * as a `LicensingException`, anything else `INVALID_RESPONSE`.
 */
final class Envelope
{
    public const INVALID_RESPONSE_MESSAGE = 'Invalid response from server.';

    /**
     * @return array<string, mixed> the `data` object
     * @throws LicensingException the server's error, or INVALID_RESPONSE
     */
    public static function data(Response $response): array
    {
        $body = self::json($response);
        if (isset($body['error']) && is_array($body['error'])) {
            $error = $body['error'];
            if (isset($error['code']) && is_string($error['code']) && $error['code'] !== '') {
                throw self::refusal($response, $error);
            }
        }
        if (array_key_exists('data', $body) && $response->status >= 200 && $response->status < 300 && is_array($body['data'])) {
            return $body['data'];
        }
        throw self::invalid($response);
    }

    public static function invalid(Response $response): LicensingException
    {
        return new LicensingException(
            LicensingException::INVALID_RESPONSE,
            self::INVALID_RESPONSE_MESSAGE,
            $response->status,
            self::retryAfter($response)
        );
    }

    /** Seconds from `Retry-After`: delay-seconds or an HTTP date. */
    public static function retryAfter(Response $response): ?int
    {
        $value = $response->header('retry-after');
        if ($value === null) {
            return null;
        }
        $value = trim($value);
        if (preg_match('/^\d+$/', $value) === 1) {
            return (int) $value;
        }
        $date = strtotime($value);
        return $date === false ? null : max(0, $date - time());
    }

    /**
     * @return array<string, mixed>
     */
    private static function json(Response $response): array
    {
        $body = json_decode($response->body, true, 64);
        if (!is_array($body) || ($body !== [] && array_keys($body) === range(0, count($body) - 1))) {
            throw self::invalid($response);
        }
        return $body;
    }

    /**
     * @param array<string, mixed> $error
     */
    private static function refusal(Response $response, array $error): LicensingException
    {
        $code = $error['code'];
        $message = isset($error['message']) && is_string($error['message']) && $error['message'] !== ''
            ? $error['message']
            : $code;
        unset($error['code'], $error['message']);
        return new LicensingException($code, $message, $response->status, self::retryAfter($response), $error);
    }
}
