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
          "encoding": "json",
          "doc": "the libraries' copy of the other side's bag"
        },
        "database": {
          "type": "string",
          "doc": "the database made, which may differ from the one asked for"
        },
        "endpoints": {
          "type": "host-ports",
          "doc": "`host:port` of every unit, comma-separated"
        },
        "entity-name": {
          "type": "string"
        },
        "entity-password": {
          "type": "string"
        },
        "password": {
          "type": "string",
          "doc": "only when a side has no secrets"
        },
        "prefix-databases": {
          "type": "string"
        },
        "read-only-endpoints": {
          "type": "host-ports"
        },
        "read-only-uris": {
          "type": "string"
        },
        "requests": {
          "type": {
            "list": "response"
          },
          "encoding": "json",
          "doc": "v1: the answer to each request, by its `request-id`"
        },
        "resource": {
          "type": "string",
          "doc": "dpcharmlibs-interfaces' name of `database`"
        },
        "salt": {
          "type": "string",
          "doc": "dpcharmlibs-interfaces' request salt"
        },
        "secret-entity": {
          "type": "secret-uri",
          "doc": "the secret holding `entity-name`, `entity-password`"
        },
        "secret-extra": {
          "type": "secret-uri"
        },
        "secret-tls": {
          "type": "secret-uri",
          "doc": "the secret holding `tls`, `tls-ca`"
        },
        "secret-user": {
          "type": "secret-uri",
          "doc": "the secret holding `username`, `password`, `uris`, `read-only-uris`"
        },
        "status": {
          "type": {
            "list": "status"
          },
          "encoding": "json"
        },
        "subordinated": {
          "type": {
            "enum": [
              "true"
            ]
          }
        },
        "tls": {
          "type": {
            "enum": [
              "true",
              "false"
            ]
          }
        },
        "tls-ca": {
          "type": "string"
        },
        "uris": {
          "type": "string"
        },
        "username": {
          "type": "string",
          "doc": "only when a side has no secrets"
        },
        "version": {
          "type": "string",
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
          "doc": "a subordinate provider's unit is ready"
        }
      }
    },
    "requirer": {
      "app": {
        "data": {
          "type": "any-object",
          "encoding": "json"
        },
        "database": {
          "type": "string",
          "doc": "v0: the database asked for, or a prefix ending `*`"
        },
        "entity-permissions": {
          "type": {
            "list": "entity-permission"
          },
          "encoding": "json"
        },
        "entity-type": {
          "type": {
            "enum": [
              "USER",
              "GROUP"
            ]
          }
        },
        "external-node-connectivity": {
          "type": {
            "enum": [
              "true",
              "false"
            ]
          }
        },
        "extra-group-roles": {
          "type": "string"
        },
        "extra-user-roles": {
          "type": "string"
        },
        "prefix-matching": {
          "type": {
            "enum": [
              "all",
              "only-existing"
            ]
          }
        },
        "provided-secrets": {
          "type": {
            "list": "string"
          },
          "encoding": "json"
        },
        "requested-entity-secret": {
          "type": "secret-uri"
        },
        "requested-secrets": {
          "type": {
            "list": "string"
          },
          "encoding": "json",
          "doc": "the provider's fields to send as secrets"
        },
        "requests": {
          "type": {
            "list": "request"
          },
          "encoding": "json",
          "doc": "v1: each database asked for"
        },
        "secret-mtls": {
          "type": "secret-uri"
        },
        "version": {
          "type": {
            "enum": [
              "v0",
              "v1"
            ]
          },
          "doc": "`v1` for a requirer of v1's requests"
        }
      },
      "unit": {
        "alias": {
          "type": "string"
        },
        "data": {
          "type": "any-object",
          "encoding": "json"
        },
        "provided-secrets": {
          "type": {
            "list": "string"
          },
          "encoding": "json"
        },
        "requested-secrets": {
          "type": {
            "list": "string"
          },
          "encoding": "json"
        }
      }
    },
    "types": {
      "entity-permission": {
        "privileges": {
          "type": {
            "list": "string"
          },
          "required": true
        },
        "resource_name": {
          "type": "string",
          "required": true
        },
        "resource_type": {
          "type": "string",
          "required": true
        }
      },
      "request": {
        "entity-type": {
          "type": {
            "enum": [
              "USER",
              "GROUP"
            ]
          }
        },
        "external-node-connectivity": {
          "type": "bool"
        },
        "extra-group-roles": {
          "type": "string"
        },
        "extra-user-roles": {
          "type": "string"
        },
        "prefix-matching": {
          "type": {
            "enum": [
              "all",
              "only-existing"
            ]
          }
        },
        "request-id": {
          "type": "string",
          "doc": "the request's id; the provider's answer carries it"
        },
        "resource": {
          "type": "string",
          "required": true,
          "doc": "the database asked for"
        },
        "salt": {
          "type": "string"
        }
      },
      "response": {
        "endpoints": {
          "type": "host-ports"
        },
        "read-only-endpoints": {
          "type": "host-ports"
        },
        "request-id": {
          "type": "string",
          "required": true
        },
        "resource": {
          "type": "string"
        },
        "salt": {
          "type": "string"
        },
        "secret-entity": {
          "type": "secret-uri"
        },
        "secret-extra": {
          "type": "secret-uri"
        },
        "secret-tls": {
          "type": "secret-uri"
        },
        "secret-user": {
          "type": "secret-uri"
        },
        "version": {
          "type": "string"
        }
      },
      "status": {
        "code": {
          "type": "int",
          "required": true
        },
        "message": {
          "type": "string"
        },
        "resolution": {
          "type": "string"
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
          "doc": "what the provider supports; each omitted field is unknown"
        },
        "certificates": {
          "type": {
            "list": "certificate"
          },
          "doc": "each certificate signed, with its CSR"
        },
        "request_errors": {
          "type": {
            "list": "request-error"
          },
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
          "doc": "the CSRs to sign (the library writes them to the unit bag unless in its application mode)"
        }
      },
      "unit": {
        "certificate_signing_requests": {
          "type": {
            "list": "csr"
          },
          "doc": "the CSRs to sign (the library writes them to the unit bag unless in its application mode)"
        }
      }
    },
    "types": {
      "capabilities": {
        "allowed_domains": {
          "type": {
            "list": "string"
          }
        },
        "provider_type": {
          "type": "string"
        },
        "supports_ca_certificates": {
          "type": "bool"
        },
        "supports_ip_sans": {
          "type": "bool"
        },
        "supports_subdomain": {
          "type": "bool"
        },
        "supports_wildcard_dns": {
          "type": "bool"
        }
      },
      "certificate": {
        "ca": {
          "type": "string",
          "required": true
        },
        "certificate": {
          "type": "string",
          "required": true
        },
        "certificate_signing_request": {
          "type": "string",
          "required": true
        },
        "chain": {
          "type": {
            "list": "string"
          }
        },
        "recommended_expiry_notification_time": {
          "type": "int"
        },
        "revoked": {
          "type": "bool"
        }
      },
      "csr": {
        "ca": {
          "type": "bool"
        },
        "certificate_signing_request": {
          "type": "string",
          "required": true
        }
      },
      "provider-error": {
        "code": {
          "type": "int",
          "required": true
        },
        "endpoint": {
          "type": "string"
        },
        "message": {
          "type": "string",
          "required": true
        },
        "name": {
          "type": "string",
          "required": true
        },
        "provider": {
          "type": "string"
        },
        "reason": {
          "type": "string"
        }
      },
      "request-error": {
        "certificate_signing_request": {
          "type": "string"
        },
        "csr": {
          "type": "string"
        },
        "error": {
          "type": "provider-error",
          "required": true
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
          "doc": "where the application is reached"
        }
      },
      "unit": {}
    },
    "requirer": {
      "app": {
        "healthcheck_params": {
          "type": "healthcheck",
          "doc": "the library's own"
        },
        "is_port_open": {
          "type": "bool",
          "doc": "the library's own"
        },
        "model": {
          "type": "string",
          "required": true,
          "doc": "the model the application is in"
        },
        "name": {
          "type": "string",
          "required": true,
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
          "doc": "the port its units serve on"
        },
        "redirect-https": {
          "type": "bool",
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
          "doc": "how the units are reached; left out when http"
        },
        "strip-prefix": {
          "type": "bool",
          "doc": "strip the model-app prefix before forwarding; left out when false"
        }
      },
      "unit": {
        "host": {
          "type": "string",
          "required": true,
          "doc": "the unit's host name (the library's default: its FQDN)"
        },
        "ip": {
          "type": "string",
          "doc": "the unit's address"
        }
      }
    },
    "types": {
      "healthcheck": {
        "hostname": {
          "type": "string"
        },
        "interval": {
          "type": "string"
        },
        "path": {
          "type": "string",
          "required": true
        },
        "port": {
          "type": "int"
        },
        "scheme": {
          "type": "string"
        },
        "timeout": {
          "type": "string"
        }
      },
      "ingress-url": {
        "url": {
          "type": "url",
          "required": true,
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
    "provider": {
      "app": {
        "receivers": {
          "type": {
            "list": "receiver"
          },
          "required": true,
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
          "doc": "the protocols the requirer will send in"
        }
      },
      "unit": {}
    },
    "types": {
      "protocol": {
        "name": {
          "type": "string",
          "required": true
        },
        "type": {
          "type": {
            "enum": [
              "http",
              "grpc"
            ]
          },
          "required": true
        }
      },
      "receiver": {
        "protocol": {
          "type": "protocol",
          "required": true
        },
        "url": {
          "type": "string",
          "required": true,
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
          "doc": "the interface version this side speaks"
        }
      },
      "unit": {
        "ca": {
          "type": "string",
          "doc": "v0 fallback"
        },
        "certificate": {
          "type": "string",
          "doc": "v0 fallback"
        },
        "chain": {
          "type": {
            "list": "string"
          },
          "doc": "v0 fallback"
        },
        "version": {
          "type": {
            "int": {
              "min": 0,
              "max": 0
            }
          },
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
