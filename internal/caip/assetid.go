package caip

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The grammar of CAIP-2 and CAIP-19.
var (
	chainNamespaceRE = regexp.MustCompile(`^[-a-z0-9]{3,8}$`)
	chainReferenceRE = regexp.MustCompile(`^[-_a-zA-Z0-9]{1,32}$`)
	assetNamespaceRE = regexp.MustCompile(`^[-a-z0-9]{3,8}$`)
	assetReferenceRE = regexp.MustCompile(`^[-.%a-zA-Z0-9]{1,128}$`)
	evmAddressRE     = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
)

// AssetID is a parsed CAIP-19 asset id: <ChainID>/<Namespace>:<Reference>.
type AssetID struct {
	// ChainID is the CAIP-2 chain id, e.g. "eip155:1".
	ChainID string
	// Namespace is the asset namespace, e.g. "slip44", "erc20", "spl".
	Namespace string
	// Reference identifies the asset inside the namespace: a coin type or a contract address.
	Reference string
}

// String formats the id as CAIP-19.
func (a AssetID) String() string { return a.ChainID + "/" + a.Namespace + ":" + a.Reference }

// ChainKey returns the short key of the asset's chain, if the chain is in the table.
func (a AssetID) ChainKey() (string, bool) { return ChainKey(a.ChainID) }

// IsNative reports whether the id names a chain's native asset (slip44 namespace).
func (a AssetID) IsNative() bool { return a.Namespace == "slip44" }

// ValidateChainID checks s against the CAIP-2 grammar.
func ValidateChainID(s string) error {
	ns, ref, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("chain id %q: want <namespace>:<reference>", s)
	}
	if !chainNamespaceRE.MatchString(ns) {
		return fmt.Errorf("chain id %q: bad namespace %q", s, ns)
	}
	if !chainReferenceRE.MatchString(ref) {
		return fmt.Errorf("chain id %q: bad reference %q", s, ref)
	}
	return nil
}

// ParseAssetID parses and validates a CAIP-19 asset id. It checks the grammar only; use
// ParseKnownAssetID to also require a chain of the table.
func ParseAssetID(s string) (AssetID, error) {
	chainID, asset, ok := strings.Cut(s, "/")
	if !ok {
		return AssetID{}, fmt.Errorf("asset id %q: want <chainId>/<namespace>:<reference>", s)
	}
	if err := ValidateChainID(chainID); err != nil {
		return AssetID{}, fmt.Errorf("asset id %q: %w", s, err)
	}
	ns, ref, ok := strings.Cut(asset, ":")
	if !ok {
		return AssetID{}, fmt.Errorf("asset id %q: want <namespace>:<reference> after the chain id", s)
	}
	if !assetNamespaceRE.MatchString(ns) {
		return AssetID{}, fmt.Errorf("asset id %q: bad asset namespace %q", s, ns)
	}
	if !assetReferenceRE.MatchString(ref) {
		return AssetID{}, fmt.Errorf("asset id %q: bad asset reference %q", s, ref)
	}
	if ns == "slip44" {
		if _, err := strconv.ParseUint(ref, 10, 32); err != nil {
			return AssetID{}, fmt.Errorf("asset id %q: slip44 reference must be a coin type number", s)
		}
	}
	return AssetID{ChainID: chainID, Namespace: ns, Reference: ref}, nil
}

// ParseKnownAssetID parses s and requires its chain to be in the table and its namespace to be
// the chain's native (slip44) or token namespace.
func ParseKnownAssetID(s string) (AssetID, error) {
	id, err := ParseAssetID(s)
	if err != nil {
		return AssetID{}, err
	}
	c, ok := LookupChainID(id.ChainID)
	if !ok {
		return AssetID{}, fmt.Errorf("asset id %q: unknown chain %q", s, id.ChainID)
	}
	switch {
	case id.Namespace == "slip44":
		if id.Reference != strconv.Itoa(c.SLIP44) {
			return AssetID{}, fmt.Errorf("asset id %q: %s's native coin type is %d", s, c.Key, c.SLIP44)
		}
	case c.TokenNamespace == "" || id.Namespace != c.TokenNamespace:
		return AssetID{}, fmt.Errorf("asset id %q: namespace %q is not used on %s", s, id.Namespace, c.Key)
	}
	return id, nil
}

// NativeAsset returns the CAIP-19 id of the native asset of the chain with the short key.
func NativeAsset(chainKey string) (AssetID, bool) {
	c, ok := LookupChain(chainKey)
	if !ok {
		return AssetID{}, false
	}
	return AssetID{ChainID: c.ID, Namespace: "slip44", Reference: strconv.Itoa(c.SLIP44)}, true
}

// TokenAsset returns the CAIP-19 id of a fungible token on the chain with the short key.
// EVM contract addresses are lower-cased so ids built from differently-cased (EIP-55)
// addresses compare equal.
func TokenAsset(chainKey, contract string) (AssetID, error) {
	c, ok := LookupChain(chainKey)
	if !ok {
		return AssetID{}, fmt.Errorf("unknown chain key %q", chainKey)
	}
	if c.TokenNamespace == "" {
		return AssetID{}, fmt.Errorf("chain %s has no token standard", chainKey)
	}
	ref := contract
	if c.TokenNamespace == "erc20" {
		if !evmAddressRE.MatchString(contract) {
			return AssetID{}, fmt.Errorf("%s token contract %q is not an EVM address", chainKey, contract)
		}
		ref = strings.ToLower(contract)
	}
	if !assetReferenceRE.MatchString(ref) {
		return AssetID{}, fmt.Errorf("%s token contract %q is not a valid CAIP-19 reference", chainKey, contract)
	}
	return AssetID{ChainID: c.ID, Namespace: c.TokenNamespace, Reference: ref}, nil
}
