// Package s3store is the objstore.Backend of an S3 bucket, on AWS or on an
// S3-compatible server, through the AWS SDK for Go v2 (service/s3 and its
// config loader). Configuration is the AWS CLI's, from the environment and
// the shared config and credentials files:
//
//   - credentials: the SDK's default chain (AWS_ACCESS_KEY_ID and
//     AWS_SECRET_ACCESS_KEY, the profile's keys, SSO, assumed roles or
//     credential_process in ~/.aws/config, web identity (EKS IRSA),
//     ECS/EKS container credentials, EC2 instance metadata); AWS_PROFILE
//     picks the profile;
//   - endpoint: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, or endpoint_url in
//     the profile, for an S3-compatible server;
//   - region: AWS_REGION, AWS_DEFAULT_REGION or the profile's; without one,
//     the bucket's own region (asked of AWS), or us-east-1 at a custom
//     endpoint;
//   - addressing: virtual-host style (bucket.s3.region.amazonaws.com) on
//     AWS, path style (endpoint/bucket/key) at a custom endpoint, as most
//     S3-compatible servers want; CLUSTERLENS_S3_ADDRESSING=path or
//     virtual overrides.
//
// The SDK's own retries are off: objstore retries every request.
package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/clusterlens/clusterlens/internal/objstore"
)

// AddressingEnv overrides the addressing style: "path" or "virtual".
const AddressingEnv = "CLUSTERLENS_S3_ADDRESSING"

// Bucket is one S3 bucket.
type Bucket struct {
	client *s3.Client
	bucket string
	creds  aws.CredentialsProvider

	once  sync.Once
	about string // Credentials' answer
}

// Options adjust New; the zero value reads everything from the
// environment.
type Options struct {
	// HTTPClient sends the requests (nil: the SDK's).
	HTTPClient *http.Client
}

// New returns the bucket named bucket, configured as the AWS CLI would be.
func New(ctx context.Context, bucket string, opt Options) (*Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
		config.WithLogger(logging.Nop{}))
	if err != nil {
		return nil, fmt.Errorf("s3://%s: aws configuration: %w", bucket, err)
	}
	client := s3.NewFromConfig(cfg)
	custom := client.Options().BaseEndpoint != nil
	pathStyle := custom
	switch a := os.Getenv(AddressingEnv); a {
	case "":
	case "path", "virtual":
		pathStyle = a == "path"
	default:
		return nil, fmt.Errorf("%s=%q: want path or virtual", AddressingEnv, a)
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
		if !custom {
			if r, err := bucketRegion(ctx, bucket, opt.HTTPClient); err == nil {
				region = r
			}
		}
	}
	client = s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = pathStyle
		o.Region = region
		// Ranged reads carry no whole-object checksum to check.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		if opt.HTTPClient != nil {
			o.HTTPClient = opt.HTTPClient
		}
	})
	return &Bucket{client: client, bucket: bucket, creds: cfg.Credentials}, nil
}

// bucketRegion asks AWS where a bucket lives: every answer to an unsigned
// HEAD of the bucket, a refusal included, names its region.
func bucketRegion(ctx context.Context, bucket string, hc *http.Client) (string, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, "https://"+bucket+".s3.amazonaws.com/", nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if r := resp.Header.Get("X-Amz-Bucket-Region"); r != "" {
		return r, nil
	}
	return "", fmt.Errorf("no region for bucket %s (HTTP %d)", bucket, resp.StatusCode)
}

// List implements objstore.Backend.
func (b *Bucket) List(ctx context.Context, prefix string, fn func(objstore.Entry) error) error {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket: &b.bucket, Prefix: &prefix, Delimiter: aws.String("/"),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return classify(err)
		}
		for _, cp := range page.CommonPrefixes {
			if err := fn(objstore.Entry{Key: aws.ToString(cp.Prefix), Dir: true}); err != nil {
				return err
			}
		}
		for _, o := range page.Contents {
			e := objstore.Entry{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified), Version: aws.ToString(o.ETag)}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stat implements objstore.Backend.
func (b *Bucket) Stat(ctx context.Context, key string) (objstore.Entry, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return objstore.Entry{}, classify(err)
	}
	return objstore.Entry{Key: key, Size: aws.ToInt64(out.ContentLength), ModTime: aws.ToTime(out.LastModified), Version: aws.ToString(out.ETag)}, nil
}

// Read implements objstore.Backend.
func (b *Bucket) Read(ctx context.Context, key, version string, off, n int64) (io.ReadCloser, objstore.Entry, error) {
	in := &s3.GetObjectInput{Bucket: &b.bucket, Key: &key, Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+n-1))}
	if version != "" {
		in.IfMatch = &version
	}
	out, err := b.client.GetObject(ctx, in)
	if err != nil {
		return nil, objstore.Entry{}, classify(err)
	}
	e := objstore.Entry{Key: key, Size: aws.ToInt64(out.ContentLength), ModTime: aws.ToTime(out.LastModified), Version: aws.ToString(out.ETag)}
	if total, ok := rangeTotal(aws.ToString(out.ContentRange)); ok {
		e.Size = total
	}
	return out.Body, e, nil
}

// rangeTotal parses the object size out of "bytes 0-99/1234".
func rangeTotal(cr string) (int64, bool) {
	_, total, ok := strings.Cut(cr, "/")
	if !ok || total == "*" {
		return 0, false
	}
	n, err := strconv.ParseInt(total, 10, 64)
	return n, err == nil
}

// classify turns the SDK's errors into objstore's: an *objstore.HTTPError
// for an HTTP answer, the transport's error otherwise.
func classify(err error) error {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil || re.HTTPStatusCode() == 0 {
		return err // no answer: the transport's error
	}
	he := &objstore.HTTPError{Status: re.HTTPStatusCode()}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		he.Code, he.Message = ae.ErrorCode(), ae.ErrorMessage()
		if he.Code == "NotFound" || he.Code == "Forbidden" { // a HEAD answer has no body: only the status speaks
			he.Code = ""
		}
	}
	return he
}

// Credentials implements objstore.Backend: where the chain found its keys,
// and the key id's first and last characters.
func (b *Bucket) Credentials() string {
	b.once.Do(func() {
		if b.creds == nil {
			b.about = "none (anonymous)"
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := b.creds.Retrieve(ctx)
		if err != nil {
			b.about = "none found by the AWS default chain (environment, shared config and credentials files, web identity, container and instance metadata): " + err.Error()
			return
		}
		b.about = fmt.Sprintf("access key %s from %s", mask(c.AccessKeyID), c.Source)
		if p := os.Getenv("AWS_PROFILE"); p != "" {
			b.about += " (AWS_PROFILE=" + p + ")"
		}
	})
	return b.about
}

// mask keeps the first 4 and last 4 characters of an access key id.
func mask(id string) string {
	if len(id) <= 8 {
		return strings.Repeat("*", len(id))
	}
	return id[:4] + "…" + id[len(id)-4:]
}
