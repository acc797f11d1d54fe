"""The interface descriptions (`guest-sdk/interfaces/`), written by
`WASM_CHARM_REGENERATE=1 cargo test -p wasm-charm --lib schemas`: do not edit."""

import json

DESCRIPTIONS = json.loads(
    r'''
[
  {
    "interface": "postgresql_client",
    "version": 0,
    "encoding": "raw",
    "source": {
      "repository": "canonical/charmlibs",
      "commit": "caaf7415b6e37e09c76513d98a02cdd6494556ef",
      "path": "interfaces/postgresql_client/interface/v0/schema.py",
      "library": "dpcharmlibs-interfaces==1.2.2"
    },
    "disagreements": [
      "The schema requires `username` and `password` in the provider's bag; the libraries move them into the secret named by `secret-user` whenever both sides support secrets, so here they are optional.",
      "The schema types `requested-secrets` as a list; on the wire it is JSON text, as the libraries write it.",
      "The libraries keep a copy of the other side's bag in their own under `data` (JSON); the schema does not name it.",
      "The schema requires `database` of the requirer; a v1 requirer names its databases in `requests` instead, so here it is optional. The v1 requests and responses are not in the schema at all.",
      "dpcharmlibs-interfaces 1.2.2, as a provider answering a v0 request, also writes `resource` (the database's name again) and `salt`; the schema names neither."
    ],
    "provider": {
      "app": {
        "data": {
          "type": "any-object",
          "required": false,
          "encoding": "json",
          "doc": "the libraries' copy of the other side's bag"
        },
        "database": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "the database made, which may differ from the one asked for"
        },
        "endpoints": {
          "type": "host-ports",
          "required": false,
          "encoding": null,
          "doc": "`host:port` of every unit, comma-separated"
        },
        "entity-name": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "entity-password": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "password": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "only when a side has no secrets"
        },
        "prefix-databases": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "read-only-endpoints": {
          "type": "host-ports",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "read-only-uris": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "requests": {
          "type": {
            "list": "response"
          },
          "required": false,
          "encoding": "json",
          "doc": "v1: the answer to each request, by its `request-id`"
        },
        "resource": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "dpcharmlibs-interfaces' name of `database`"
        },
        "salt": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "dpcharmlibs-interfaces' request salt"
        },
        "secret-entity": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": "the secret holding `entity-name`, `entity-password`"
        },
        "secret-extra": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "secret-tls": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": "the secret holding `tls`, `tls-ca`"
        },
        "secret-user": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": "the secret holding `username`, `password`, `uris`, `read-only-uris`"
        },
        "status": {
          "type": {
            "list": "status"
          },
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "subordinated": {
          "type": {
            "enum": [
              "true"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "tls": {
          "type": {
            "enum": [
              "true",
              "false"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "tls-ca": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "uris": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "username": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "only when a side has no secrets"
        },
        "version": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "the database engine's version"
        }
      },
      "unit": {
        "state": {
          "type": {
            "enum": [
              "ready"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": "a subordinate provider's unit is ready"
        }
      }
    },
    "requirer": {
      "app": {
        "data": {
          "type": "any-object",
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "database": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "v0: the database asked for, or a prefix ending `*`"
        },
        "entity-permissions": {
          "type": {
            "list": "entity-permission"
          },
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "entity-type": {
          "type": {
            "enum": [
              "USER",
              "GROUP"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "external-node-connectivity": {
          "type": {
            "enum": [
              "true",
              "false"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "extra-group-roles": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "extra-user-roles": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "prefix-matching": {
          "type": {
            "enum": [
              "all",
              "only-existing"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "provided-secrets": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "requested-entity-secret": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "requested-secrets": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": "json",
          "doc": "the provider's fields to send as secrets"
        },
        "requests": {
          "type": {
            "list": "request"
          },
          "required": false,
          "encoding": "json",
          "doc": "v1: each database asked for"
        },
        "secret-mtls": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "version": {
          "type": {
            "enum": [
              "v0",
              "v1"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": "`v1` for a requirer of v1's requests"
        }
      },
      "unit": {
        "alias": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "data": {
          "type": "any-object",
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "provided-secrets": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": "json",
          "doc": ""
        },
        "requested-secrets": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": "json",
          "doc": ""
        }
      }
    },
    "types": {
      "entity-permission": {
        "privileges": {
          "type": {
            "list": "string"
          },
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "resource_name": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "resource_type": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        }
      },
      "request": {
        "entity-type": {
          "type": {
            "enum": [
              "USER",
              "GROUP"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "external-node-connectivity": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "extra-group-roles": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "extra-user-roles": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "prefix-matching": {
          "type": {
            "enum": [
              "all",
              "only-existing"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "request-id": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "the request's id; the provider's answer carries it"
        },
        "resource": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": "the database asked for"
        },
        "salt": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "response": {
        "endpoints": {
          "type": "host-ports",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "read-only-endpoints": {
          "type": "host-ports",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "request-id": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "resource": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "salt": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "secret-entity": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "secret-extra": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "secret-tls": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "secret-user": {
          "type": "secret-uri",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "version": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "status": {
        "code": {
          "type": "int",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "message": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "resolution": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      }
    }
  },
  {
    "interface": "tls-certificates",
    "version": 1,
    "encoding": "json",
    "source": {
      "repository": "canonical/charmlibs",
      "commit": "caaf7415b6e37e09c76513d98a02cdd6494556ef",
      "path": "interfaces/tls-certificates/interface/v1/schema.py",
      "library": "charmlibs-interfaces-tls-certificates==1.12.0"
    },
    "disagreements": [
      "In `request_errors`, the library writes the CSR under `csr`; the schema names it `certificate_signing_request`. Either is taken here."
    ],
    "provider": {
      "app": {
        "capabilities": {
          "type": "capabilities",
          "required": false,
          "encoding": null,
          "doc": "what the provider supports; each omitted field is unknown"
        },
        "certificates": {
          "type": {
            "list": "certificate"
          },
          "required": false,
          "encoding": null,
          "doc": "each certificate signed, with its CSR"
        },
        "request_errors": {
          "type": {
            "list": "request-error"
          },
          "required": false,
          "encoding": null,
          "doc": "each CSR the provider refused, and why"
        }
      },
      "unit": {}
    },
    "requirer": {
      "app": {
        "certificate_signing_requests": {
          "type": {
            "list": "csr"
          },
          "required": false,
          "encoding": null,
          "doc": "the CSRs to sign (the library writes them to the unit bag unless in its application mode)"
        }
      },
      "unit": {
        "certificate_signing_requests": {
          "type": {
            "list": "csr"
          },
          "required": false,
          "encoding": null,
          "doc": "the CSRs to sign (the library writes them to the unit bag unless in its application mode)"
        }
      }
    },
    "types": {
      "capabilities": {
        "allowed_domains": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "provider_type": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "supports_ca_certificates": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "supports_ip_sans": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "supports_subdomain": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "supports_wildcard_dns": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "certificate": {
        "ca": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "certificate": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "certificate_signing_request": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "chain": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "recommended_expiry_notification_time": {
          "type": "int",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "revoked": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "csr": {
        "ca": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "certificate_signing_request": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        }
      },
      "provider-error": {
        "code": {
          "type": "int",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "endpoint": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "message": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "name": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "provider": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "reason": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "request-error": {
        "certificate_signing_request": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "csr": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "error": {
          "type": "provider-error",
          "required": true,
          "encoding": null,
          "doc": ""
        }
      }
    }
  },
  {
    "interface": "ingress",
    "version": 2,
    "encoding": "json",
    "source": {
      "repository": "canonical/charmlibs",
      "commit": "caaf7415b6e37e09c76513d98a02cdd6494556ef",
      "path": "interfaces/ingress/interface/v2/schema.py",
      "library": "charms.traefik_k8s.v2.ingress (LIBPATCH 21)"
    },
    "disagreements": [
      "The schema puts `name` in the requirer's unit bag in its example and in the application bag in its model; the library writes it in the application bag.",
      "`strip-prefix`, `redirect-https`, `scheme`, `ip` and the library's `healthcheck_params` are not in the schema."
    ],
    "provider": {
      "app": {
        "ingress": {
          "type": "ingress-url",
          "required": false,
          "encoding": null,
          "doc": "where the application is reached"
        }
      },
      "unit": {}
    },
    "requirer": {
      "app": {
        "healthcheck_params": {
          "type": "healthcheck",
          "required": false,
          "encoding": null,
          "doc": "the library's own"
        },
        "is_port_open": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": "the library's own"
        },
        "model": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": "the model the application is in"
        },
        "name": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": "the application asking for ingress"
        },
        "port": {
          "type": {
            "int": {
              "min": 1,
              "max": 65534
            }
          },
          "required": true,
          "encoding": null,
          "doc": "the port its units serve on"
        },
        "redirect-https": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": "redirect http to https; left out when false"
        },
        "scheme": {
          "type": {
            "enum": [
              "http",
              "https",
              "h2c"
            ]
          },
          "required": false,
          "encoding": null,
          "doc": "how the units are reached; left out when http"
        },
        "strip-prefix": {
          "type": "bool",
          "required": false,
          "encoding": null,
          "doc": "strip the model-app prefix before forwarding; left out when false"
        }
      },
      "unit": {
        "host": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": "the unit's host name (the library's default: its FQDN)"
        },
        "ip": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "the unit's address"
        }
      }
    },
    "types": {
      "healthcheck": {
        "hostname": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "interval": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "path": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "port": {
          "type": "int",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "scheme": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        },
        "timeout": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": ""
        }
      },
      "ingress-url": {
        "url": {
          "type": "url",
          "required": true,
          "encoding": null,
          "doc": "the URL the application is reached at"
        }
      }
    }
  },
  {
    "interface": "tracing",
    "version": 2,
    "encoding": "json",
    "source": {
      "repository": "canonical/charmlibs",
      "commit": "caaf7415b6e37e09c76513d98a02cdd6494556ef",
      "path": "interfaces/tracing/interface/v2/schema.py",
      "library": "charmlibs-interfaces-tracing==1.0.0"
    },
    "disagreements": [],
    "provider": {
      "app": {
        "receivers": {
          "type": {
            "list": "receiver"
          },
          "required": true,
          "encoding": null,
          "doc": "each enabled receiver and where it listens"
        }
      },
      "unit": {}
    },
    "requirer": {
      "app": {
        "receivers": {
          "type": {
            "list": {
              "enum": [
                "zipkin",
                "otlp_grpc",
                "otlp_http",
                "jaeger_grpc",
                "jaeger_thrift_http"
              ]
            }
          },
          "required": true,
          "encoding": null,
          "doc": "the protocols the requirer will send in"
        }
      },
      "unit": {}
    },
    "types": {
      "protocol": {
        "name": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "type": {
          "type": {
            "enum": [
              "http",
              "grpc"
            ]
          },
          "required": true,
          "encoding": null,
          "doc": ""
        }
      },
      "receiver": {
        "protocol": {
          "type": "protocol",
          "required": true,
          "encoding": null,
          "doc": ""
        },
        "url": {
          "type": "string",
          "required": true,
          "encoding": null,
          "doc": "a grpc receiver's has no scheme"
        }
      }
    }
  },
  {
    "interface": "certificate_transfer",
    "version": 1,
    "encoding": "json",
    "source": {
      "repository": "canonical/charmlibs",
      "commit": "caaf7415b6e37e09c76513d98a02cdd6494556ef",
      "path": "interfaces/certificate_transfer/interface/v1/schema.py",
      "library": "charmlibs-interfaces-certificate-transfer==1.1.0"
    },
    "disagreements": [
      "The schema types `certificates` as a set; on the wire it is a JSON list, which the library sorts."
    ],
    "provider": {
      "app": {
        "certificates": {
          "type": {
            "set": "string"
          },
          "required": true,
          "encoding": null,
          "doc": "the PEM certificates sent, sorted"
        },
        "version": {
          "type": {
            "int": {
              "min": 1,
              "max": 1
            }
          },
          "required": true,
          "encoding": null,
          "doc": "the interface version this side speaks"
        }
      },
      "unit": {
        "ca": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "v0 fallback"
        },
        "certificate": {
          "type": "string",
          "required": false,
          "encoding": null,
          "doc": "v0 fallback"
        },
        "chain": {
          "type": {
            "list": "string"
          },
          "required": false,
          "encoding": null,
          "doc": "v0 fallback"
        },
        "version": {
          "type": {
            "int": {
              "min": 0,
              "max": 0
            }
          },
          "required": false,
          "encoding": null,
          "doc": "v0 fallback"
        }
      }
    },
    "requirer": {
      "app": {
        "version": {
          "type": {
            "int": {
              "min": 1,
              "max": 1
            }
          },
          "required": true,
          "encoding": null,
          "doc": "the interface version this side speaks"
        }
      },
      "unit": {}
    },
    "types": {}
  }
]
'''
)
