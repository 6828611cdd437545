<?php

// WordPress's HTTP functions as a test needs them: each request is recorded, each answer is the
// next of $GLOBALS['licensing_wp_answers'] (an array of WordPress's shape, or a WP_Error).

class WP_Error
{
    /** @var string */
    private $message;

    public function __construct(string $code = '', string $message = '')
    {
        $this->message = $message;
    }

    public function get_error_message(): string
    {
        return $this->message;
    }
}

function wp_remote_request($url, $args = [])
{
    $GLOBALS['licensing_wp_requests'][] = ['url' => $url, 'args' => $args];
    return array_shift($GLOBALS['licensing_wp_answers']);
}

function is_wp_error($thing)
{
    return $thing instanceof WP_Error;
}

function wp_remote_retrieve_response_code($response)
{
    return isset($response['response']['code']) ? $response['response']['code'] : '';
}

function wp_remote_retrieve_headers($response)
{
    return isset($response['headers']) ? $response['headers'] : [];
}

function wp_remote_retrieve_body($response)
{
    return isset($response['body']) ? $response['body'] : '';
}
